using System.Buffers.Binary;
using FastLoad.Packing;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Packing;

/// <summary>A temporary folder to pack, and helpers that take a pack apart to corrupt one field at a time.</summary>
public abstract class PackTestBase : TempDirectoryTestBase
{
    protected const int SmallBlock = 4096;

    protected string Source => Path.Combine(Root, "src");

    protected string PackPath => Path.Combine(Root, "test.fpk");

    private protected async Task<Dictionary<string, byte[]>> LoadAllAsync(string packPath, PackReaderOptions? options = null)
    {
        var entries = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        await using PackReader reader = await PackReader.OpenAsync(packPath, options);
        await foreach (LoadedFile entry in reader.LoadAllAsync())
        {
            using (entry)
            {
                entries.Add(entry.Path, entry.Data.ToArray());
            }
        }

        return entries;
    }

    /// <summary>Writes files "f0.bin", "dir/f1.bin", ... of the given sizes under <see cref="Source"/>; returns name -> contents.</summary>
    private protected Dictionary<string, byte[]> WriteSource(string kind, params int[] sizes)
    {
        var files = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        for (int i = 0; i < sizes.Length; i++)
        {
            string name = i % 2 == 0 ? $"f{i}.bin" : $"dir{i % 3}/f{i}.bin";
            byte[] data = TestData.Create(kind, sizes[i], seed: i + 1);
            WriteFile(Path.Combine("src", name), data);
            files.Add(name, data);
        }

        return files;
    }

    /// <summary>A valid pack of a few files over several small blocks, as bytes.</summary>
    private protected async Task<byte[]> SmallPackAsync()
    {
        WriteSource(TestData.Mixed, 10, 5000, 0, 9000, 3);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = SmallBlock });
        return await File.ReadAllBytesAsync(PackPath);
    }

    private protected static (int IndexOffset, int IndexLength) Footer(byte[] pack) =>
        ((int)BinaryPrimitives.ReadInt64LittleEndian(pack.AsSpan(pack.Length - 32)), (int)BinaryPrimitives.ReadInt64LittleEndian(pack.AsSpan(pack.Length - 24)));

    /// <summary>Changes the index and writes its new hash into the footer, so the change reaches the index checks.</summary>
    private protected static byte[] EditIndex(byte[] pack, Action<Span<byte>> edit)
    {
        byte[] copy = (byte[])pack.Clone();
        (int offset, int length) = Footer(copy);
        Span<byte> index = copy.AsSpan(offset, length);
        edit(index);
        BinaryPrimitives.WriteUInt64LittleEndian(copy.AsSpan(copy.Length - 16), PackHash.Hash(index));
        return copy;
    }

    private protected static int BlockCount(ReadOnlySpan<byte> index) => BinaryPrimitives.ReadInt32LittleEndian(index[4..]);

    private protected static int BlockRecord(int block) => PackFormat.IndexHeaderSize + (block * PackFormat.BlockRecordSize);

    private protected static int EntryRecord(ReadOnlySpan<byte> index, int entry) => BlockRecord(BlockCount(index)) + (entry * PackFormat.EntryRecordSize);

    private protected async Task<InvalidDataException> OpenAndLoadFailsAsync(byte[] pack, PackReaderOptions? options = null)
    {
        string path = Path.Combine(Root, $"bad-{Guid.NewGuid():N}.fpk");
        await File.WriteAllBytesAsync(path, pack);
        return await Assert.ThrowsAsync<InvalidDataException>(() => LoadAllAsync(path, options));
    }
}
