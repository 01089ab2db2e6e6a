using FastLoad.Tests.Infrastructure;
using Microsoft.Extensions.FileProviders;

namespace FastLoad.Tests.Packing;

/// <summary>
/// Reads of part of an entry through <see cref="PackFileProvider"/> streams: only the blocks a read touches are decoded,
/// through the pack's block cache, and the bytes are right wherever the read falls.
/// </summary>
public sealed class PackRandomAccessTests : PackTestBase
{
    private const int Blocks = 20;

    /// <summary>A 13-byte entry first, so that the large entry starts inside block 0 and its blocks edges fall mid-entry.</summary>
    private async Task<byte[]> PackLargeEntryAsync(int blockSize, int length)
    {
        WriteFile("src/a.bin", TestData.Create(TestData.Mixed, 13, seed: 7));
        byte[] large = TestData.Create(TestData.Mixed, length, seed: 8);
        WriteFile("src/large.bin", large);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = blockSize });
        return large;
    }

    [Theory]
    [InlineData(0, 1)]
    [InlineData(0, SmallBlock)]
    [InlineData(SmallBlock - 14, 1)] // the last byte of block 0
    [InlineData(SmallBlock - 13, 1)] // the first byte of block 1
    [InlineData(SmallBlock - 14, 2)] // across the edge
    [InlineData(SmallBlock - 20, SmallBlock + 100)] // three blocks
    [InlineData((5 * SmallBlock) - 13, SmallBlock)] // exactly block 5
    [InlineData((Blocks * SmallBlock) - 100, 100)] // the end of the entry
    [InlineData((Blocks * SmallBlock) - 100, 1000)] // a read past the end stops there
    public async Task Read_AnyOffsetAndLength_ReturnsTheSameBytes(int offset, int count)
    {
        byte[] large = await PackLargeEntryAsync(SmallBlock, Blocks * SmallBlock);
        await using PackFileProvider provider = await PackFileProvider.OpenAsync(PackPath);
        using Stream stream = provider.GetFileInfo("large.bin").CreateReadStream();

        stream.Position = offset;
        byte[] buffer = new byte[count];
        int read = stream.ReadAtLeast(buffer, count, throwOnEndOfStream: false);
        byte[] asyncBuffer = new byte[count];
        stream.Position = offset;
        int readAsync = await stream.ReadAtLeastAsync(asyncBuffer, count, throwOnEndOfStream: false);

        int expected = Math.Min(count, large.Length - offset);
        Assert.Equal(expected, read);
        Assert.Equal(expected, readAsync);
        Assert.Equal(large.AsSpan(offset, expected).ToArray(), buffer.AsSpan(0, read).ToArray());
        Assert.Equal(large.AsSpan(offset, expected).ToArray(), asyncBuffer.AsSpan(0, readAsync).ToArray());
        Assert.Equal(offset + expected, stream.Position);
    }

    [Fact]
    public async Task CopyToAsync_LargeEntry_WritesTheSameBytes()
    {
        byte[] large = await PackLargeEntryAsync(SmallBlock, Blocks * SmallBlock);
        await using PackFileProvider provider = await PackFileProvider.OpenAsync(PackPath);
        using Stream stream = provider.GetFileInfo("large.bin").CreateReadStream();
        using var copy = new MemoryStream();

        stream.Position = 100;
        await stream.CopyToAsync(copy);

        Assert.Equal(large.AsSpan(100).ToArray(), copy.ToArray());
    }

    [Fact]
    public async Task Read_ConcurrentReadersAnywhere_HoldAtMostTheCachedBlocksAndReturnEveryBuffer()
    {
        byte[] large = await PackLargeEntryAsync(SmallBlock, Blocks * SmallBlock);
        var pool = new CountingPool();
        PackFileProvider provider = await PackFileProvider.OpenAsync(PackPath, new PackReaderOptions { BufferPool = pool });
        IFileInfo file = provider.GetFileInfo("large.bin");

        await Task.WhenAll(Enumerable.Range(0, 8).Select(reader => Task.Run(() =>
        {
            var random = new Random(reader);
            byte[] buffer = new byte[300];
            for (int i = 0; i < 200; i++)
            {
                using Stream stream = file.CreateReadStream();
                int offset = random.Next(large.Length - buffer.Length);
                stream.Position = offset;
                stream.ReadExactly(buffer);
                Assert.True(large.AsSpan(offset, buffer.Length).SequenceEqual(buffer), $"reader {reader}, read {i} at {offset}");
            }
        })));
        await provider.DisposeAsync();

        // Four cached blocks, each rented with its compressed bytes while it was decoded.
        Assert.InRange(pool.PeakRequestedOutstanding, 1, 4 * 2 * SmallBlock);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task ReadToEnd_EntryOverSeveralBlocksWithEntryHashesVerified_ThrowsInvalidDataAtTheEnd()
    {
        await PackRawEntryAsync();
        // The blocks are intact (their hashes match); only the entry's own hash in the index is wrong.
        byte[] pack = EditIndex(await File.ReadAllBytesAsync(PackPath), index => index[EntryRecord(index, 0) + 24] ^= 0x40);
        await File.WriteAllBytesAsync(PackPath, pack);
        await using PackFileProvider provider = await PackFileProvider.OpenAsync(PackPath, new PackReaderOptions { VerifyEntryHashes = true });
        using Stream stream = provider.GetFileInfo("noise.bin").CreateReadStream();

        byte[] buffer = new byte[SmallBlock];
        stream.ReadExactly(buffer); // the hash covers the whole entry, so the first block alone does not fail
        InvalidDataException error = await Assert.ThrowsAsync<InvalidDataException>(() => stream.CopyToAsync(Stream.Null));

        Assert.Contains("noise.bin", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(SmallBlock)] // a seek: no entry hash can be checked, the block's still is
    public async Task Read_EntryOverSeveralBlocksWithABlockDamaged_ThrowsWhenTheBlockIsRead(int from)
    {
        byte[] noise = await PackRawEntryAsync();
        byte[] pack = await File.ReadAllBytesAsync(PackPath);
        pack[16 + (3 * SmallBlock) + 5] ^= 0x40; // block 3, stored raw
        await File.WriteAllBytesAsync(PackPath, pack);
        await using PackFileProvider provider = await PackFileProvider.OpenAsync(PackPath);
        using Stream stream = provider.GetFileInfo("noise.bin").CreateReadStream();

        stream.Position = from;
        byte[] intact = new byte[(3 * SmallBlock) - from];
        stream.ReadExactly(intact);
        InvalidDataException error = Assert.Throws<InvalidDataException>(() => stream.ReadExactly(new byte[SmallBlock]));

        Assert.Equal(noise.AsSpan(from, intact.Length).ToArray(), intact);
        Assert.Contains("block 3 does not match its hash", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ReadEntryAsync_AfterRandomReads_StillReturnsTheWholeEntry()
    {
        byte[] large = await PackLargeEntryAsync(SmallBlock, Blocks * SmallBlock);
        await using PackReader reader = await PackReader.OpenAsync(PackPath);
        using (var provider = new PackFileProvider(reader))
        {
            using Stream stream = provider.GetFileInfo("large.bin").CreateReadStream();
            stream.Position = 7 * SmallBlock;
            stream.ReadExactly(new byte[10]);
        }

        Assert.Equal(large, (await reader.ReadEntryAsync("large.bin")).ToArray());
    }

    [Fact]
    public async Task Read_Synchronous_RunsOnTheCallersThreadOnly()
    {
        byte[] data = TestData.Create(TestData.Text, 5000, seed: 3); // an LZ4 block: decoding it rents its compressed bytes
        WriteFile("src/f.bin", data);
        await PackWriter.CreateAsync(PackPath, Source);
        var pool = new CountingPool();
        var renters = new System.Collections.Concurrent.ConcurrentBag<int>();
        pool.OnRent = _ => renters.Add(Environment.CurrentManagedThreadId);
        await using PackFileProvider provider = await PackFileProvider.OpenAsync(PackPath, new PackReaderOptions { BufferPool = pool });
        using Stream stream = provider.GetFileInfo("f.bin").CreateReadStream();
        byte[] buffer = new byte[data.Length];
        int read = -1;

        // A thread of its own, not the pool's: a read that queued work to the pool and waited for it would rent there.
        var reader = new Thread(() => read = stream.ReadAtLeast(buffer, buffer.Length));
        reader.Start();
        reader.Join();

        Assert.Equal(data.Length, read);
        Assert.Equal(data, buffer);
        Assert.NotEmpty(renters);
        Assert.All(renters, thread => Assert.Equal(reader.ManagedThreadId, thread));
    }

    [Fact]
    public async Task Dispose_Synchronous_ClosesThePack()
    {
        await PackLargeEntryAsync(SmallBlock, SmallBlock);
        PackReader reader = await PackReader.OpenAsync(PackPath);

        IDisposable disposable = Assert.IsAssignableFrom<IDisposable>(reader);
        disposable.Dispose();
        disposable.Dispose();

        await Assert.ThrowsAsync<ObjectDisposedException>(() => reader.ReadEntryAsync("large.bin"));
        Assert.Throws<ObjectDisposedException>(() => reader.LoadAllAsync());
    }

    /// <summary>A random entry of four blocks, stored raw, at the start of the data.</summary>
    private async Task<byte[]> PackRawEntryAsync()
    {
        byte[] noise = TestData.Create(TestData.Random, 4 * SmallBlock, seed: 9);
        WriteFile("src/noise.bin", noise);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = SmallBlock });
        return noise;
    }
}
