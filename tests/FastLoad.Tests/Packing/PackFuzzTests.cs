using System.Diagnostics;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Packing;

/// <summary>
/// Thousands of damaged packs: bytes flipped anywhere, in the data blocks only (past the index checks, into the
/// decoder and the hashes), in the index with its hash fixed (into the parser), and truncations. Each must open and
/// load cleanly or fail with <see cref="InvalidDataException"/>: no other exception, no hang, no large allocation.
/// </summary>
public sealed class PackFuzzTests(ITestOutputHelper output) : PackTestBase
{
    private const int Iterations = 3000;

    // The pack is about 40 KB; nothing a damaged copy makes us rent may exceed what a valid one needs by much.
    private const int MaxRent = 256 * 1024;

    [NotUnderWineFact("the same format checks on every OS, and a minute under Wine against seconds on Linux")]
    public async Task LoadAllAsync_DamagedPacks_OnlyInvalidDataException()
    {
        WriteSource(TestData.Mixed, 10, 5000, 0, 9000, 3, 20_000, 1, 4096);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = SmallBlock });
        byte[] valid = await File.ReadAllBytesAsync(PackPath);
        (int indexOffset, int indexLength) = Footer(valid);
        var random = new Random(12345);
        var pool = new CountingPool { OnRent = length => Assert.InRange(length, 0, MaxRent) };
        string path = Path.Combine(Root, "fuzz.fpk");
        int rejected = 0;
        long start = Stopwatch.GetTimestamp();
        for (int i = 0; i < Iterations; i++)
        {
            byte[] damaged = (i % 4) switch
            {
                0 => Flip(valid, random, 0, valid.Length),
                1 => Flip(valid, random, 16, indexOffset),
                2 => EditIndex(valid, index => FlipInPlace(index, random)),
                _ => Truncate(Flip(valid, random, 0, valid.Length), random),
            };
            await File.WriteAllBytesAsync(path, damaged);
            try
            {
                await ReadEverythingAsync(path, pool).WaitAsync(TimeSpan.FromSeconds(10));
            }
            catch (InvalidDataException)
            {
                rejected++;
            }
        }

        pool.AssertAllReturned();
        output.WriteLine($"{Iterations} damaged packs, {rejected} rejected, {Stopwatch.GetElapsedTime(start).TotalSeconds:F1} s");
        Assert.True(rejected > Iterations / 2, $"only {rejected} rejected");
    }

    private static async Task ReadEverythingAsync(string path, CountingPool pool)
    {
        await using PackReader reader = await PackReader.OpenAsync(path, new PackReaderOptions { BufferPool = pool, MemoryBudget = 64 * 1024 });
        await foreach (LoadedFile entry in reader.LoadAllAsync())
        {
            entry.Dispose();
        }

        foreach (PackEntry entry in reader.Entries)
        {
            await reader.ReadEntryAsync(entry.Name);
        }
    }

    private static byte[] Flip(byte[] valid, Random random, int from, int to)
    {
        byte[] copy = (byte[])valid.Clone();
        int flips = random.Next(1, 5);
        for (int i = 0; i < flips; i++)
        {
            copy[random.Next(from, to)] ^= (byte)(1 << random.Next(8));
        }

        return copy;
    }

    private static void FlipInPlace(Span<byte> bytes, Random random)
    {
        int flips = random.Next(1, 3);
        for (int i = 0; i < flips; i++)
        {
            bytes[random.Next(bytes.Length)] ^= (byte)random.Next(1, 256);
        }
    }

    private static byte[] Truncate(byte[] pack, Random random) => pack[..random.Next(pack.Length)];
}
