using System.Buffers.Binary;
using System.Text;
using FastLoad.Packing;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Packing;

/// <summary>Every way a pack can lie is an <see cref="InvalidDataException"/> that names the entry and the offset.</summary>
public sealed class PackBadInputTests : PackTestBase
{
    [Theory]
    [InlineData(0)]
    [InlineData(10)]
    [InlineData(47)]
    [InlineData(100)]
    [InlineData(-1)]
    [InlineData(-33)]
    public async Task OpenAsync_TruncatedPack_Throws(int keep)
    {
        byte[] pack = await SmallPackAsync();
        byte[] truncated = pack[..(keep >= 0 ? keep : pack.Length + keep)];

        InvalidDataException error = await OpenAndLoadFailsAsync(truncated);
        Assert.Contains("offset", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task OpenAsync_WrongMagic_Throws()
    {
        byte[] pack = await SmallPackAsync();
        pack[1] = (byte)'X';

        Assert.Contains("magic", (await OpenAndLoadFailsAsync(pack)).Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task OpenAsync_WrongVersion_Throws()
    {
        byte[] pack = await SmallPackAsync();
        pack[8] = 3;

        Assert.Contains("version 3", (await OpenAndLoadFailsAsync(pack)).Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(0L)]
    [InlineData(16L)]
    [InlineData(long.MaxValue)]
    [InlineData(-5L)]
    public async Task OpenAsync_IndexOffsetOutsideItsPlace_Throws(long indexOffset)
    {
        byte[] pack = await SmallPackAsync();
        BinaryPrimitives.WriteInt64LittleEndian(pack.AsSpan(pack.Length - 32), indexOffset);

        Assert.Contains("index", (await OpenAndLoadFailsAsync(pack)).Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task OpenAsync_IndexChangedWithoutItsHash_Throws()
    {
        byte[] pack = await SmallPackAsync();
        pack[Footer(pack).IndexOffset + 30] ^= 1;

        Assert.Contains("hash", (await OpenAndLoadFailsAsync(pack)).Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task OpenAsync_BlockPointsIntoAnotherBlock_Throws()
    {
        byte[] pack = EditIndex(await SmallPackAsync(), index => BinaryPrimitives.WriteInt64LittleEndian(index[BlockRecord(1)..], 20));

        Assert.Contains("block 1 starts at 20", (await OpenAndLoadFailsAsync(pack)).Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task OpenAsync_BlockDeclaresHugeRawSize_Throws()
    {
        byte[] pack = EditIndex(await SmallPackAsync(), index => BinaryPrimitives.WriteInt32LittleEndian(index[(24 + 12)..], 1 << 30));

        Assert.Contains("block 0 declares", (await OpenAndLoadFailsAsync(pack)).Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task OpenAsync_DecompressionBomb_Throws()
    {
        // One block of zeros compresses about 250:1; claiming it holds 64 MiB is more than LZ4 can expand to.
        WriteSource(TestData.Zeros, 1024 * 1024);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = 1024 * 1024 });
        byte[] pack = EditIndex(await File.ReadAllBytesAsync(PackPath), index =>
        {
            const int Claimed = 64 * 1024 * 1024;
            BinaryPrimitives.WriteInt32LittleEndian(index, Claimed);
            BinaryPrimitives.WriteInt64LittleEndian(index[16..], Claimed);
            BinaryPrimitives.WriteInt32LittleEndian(index[(24 + 12)..], Claimed);
            BinaryPrimitives.WriteInt64LittleEndian(index[(EntryRecord(index, 0) + 16)..], Claimed);
        });

        Assert.Contains("block 0", (await OpenAndLoadFailsAsync(pack)).Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task OpenAsync_EntryOverlapsThePrevious_Throws()
    {
        byte[] pack = EditIndex(await SmallPackAsync(), index =>
        {
            int record = EntryRecord(index, 1);
            BinaryPrimitives.WriteInt32LittleEndian(index[(record + 8)..], 0);
            BinaryPrimitives.WriteInt32LittleEndian(index[(record + 12)..], 0);
        });

        InvalidDataException error = await OpenAndLoadFailsAsync(pack);
        Assert.Contains("entry 1 'dir1/f1.bin'", error.Message, StringComparison.Ordinal);
        Assert.Contains("overlap", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task OpenAsync_EntryLengthBeyondTheData_Throws()
    {
        byte[] pack = EditIndex(await SmallPackAsync(), index => BinaryPrimitives.WriteInt64LittleEndian(index[(EntryRecord(index, 4) + 16)..], 1L << 40));

        Assert.Contains("entry 4 'f4.bin': declares 1099511627776 bytes", (await OpenAndLoadFailsAsync(pack)).Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task OpenAsync_DuplicateName_Throws()
    {
        byte[] pack = EditIndex(await SmallPackAsync(), index =>
        {
            // Entry 3 ("f2.bin") takes the name of entry 2 ("f0.bin"), same length.
            index.Slice(EntryRecord(index, 2), 8).CopyTo(index[EntryRecord(index, 3)..]);
        });

        Assert.Contains("entry 3 'f0.bin': a second entry", (await OpenAndLoadFailsAsync(pack)).Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("/etc/passwd", "rooted")]
    [InlineData("../../x/f3b", "'..'")]
    [InlineData("dir0/../f3b", "'..'")]
    [InlineData("dir0\0f3.bin", "NUL")]
    [InlineData("C:/dir/f3.b", "drive")]
    [InlineData("dir0\\f3.bin", "backslash")]
    [InlineData("dir0//f3.bi", "empty segment")]
    [InlineData("dir0/f3.bi/", "empty segment")]
    [InlineData("dir0/./f3.b", "'.' or '..'")]
    [InlineData("dir0/f3b/..", "'.' or '..'")]
    [InlineData("./dir0/f3.b", "'.' or '..'")]
    public async Task OpenAsync_UnsafeName_Throws(string name, string reason)
    {
        byte[] pack = EditIndex(await SmallPackAsync(), index =>
        {
            // Entry 0 is "dir0/f3.bin", 11 bytes at the start of the names.
            int names = EntryRecord(index, 5);
            Encoding.UTF8.GetBytes(name).CopyTo(index[names..]);
        });

        InvalidDataException error = await OpenAndLoadFailsAsync(pack);
        Assert.Contains("entry 0", error.Message, StringComparison.Ordinal);
        Assert.Contains(reason, error.Message, StringComparison.Ordinal);
        Assert.Contains("offset", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task LoadAllAsync_ContentHashMismatchWithEntryHashesVerified_ThrowsNamingTheEntry()
    {
        byte[] pack = EditIndex(await SmallPackAsync(), index => index[EntryRecord(index, 2) + 24] ^= 0x40);

        InvalidDataException error = await OpenAndLoadFailsAsync(pack, new PackReaderOptions { VerifyEntryHashes = true });
        Assert.Contains("entry 2 'f0.bin'", error.Message, StringComparison.Ordinal);
        Assert.Contains("hash", error.Message, StringComparison.Ordinal);
    }

    /// <summary>A changed byte is caught by its block's hash before the decoder sees it, raw block or LZ4.</summary>
    [Theory]
    [InlineData(TestData.Random)]
    [InlineData(TestData.Text)]
    public async Task LoadAllAsync_StoredByteChanged_ThrowsNamingTheBlock(string kind)
    {
        WriteSource(kind, 3 * SmallBlock);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = SmallBlock });
        byte[] pack = await File.ReadAllBytesAsync(PackPath);
        (int indexOffset, _) = Footer(pack);
        long block1 = BinaryPrimitives.ReadInt64LittleEndian(pack.AsSpan(indexOffset + BlockRecord(1)));
        Assert.Equal(kind == TestData.Random ? PackFormat.CodecRaw : PackFormat.CodecLz4, pack[indexOffset + BlockRecord(1) + 16]);
        pack[block1 + 3] ^= 0x10;

        InvalidDataException error = await OpenAndLoadFailsAsync(pack);
        Assert.Contains($"block 1 does not match its hash", error.Message, StringComparison.Ordinal);
        Assert.Contains($"offset {block1:N0}", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task CreateAsync_EveryBlockRecord_HoldsTheHashOfItsStoredBytes()
    {
        byte[] pack = await SmallPackAsync();
        (int indexOffset, _) = Footer(pack);
        ReadOnlySpan<byte> index = pack.AsSpan(indexOffset);

        Assert.Equal(PackFormat.Version, BinaryPrimitives.ReadUInt16LittleEndian(pack.AsSpan(8)));
        Assert.True(BlockCount(index) > 1);
        for (int b = 0; b < BlockCount(index); b++)
        {
            ReadOnlySpan<byte> record = index[BlockRecord(b)..];
            long offset = BinaryPrimitives.ReadInt64LittleEndian(record);
            int stored = BinaryPrimitives.ReadInt32LittleEndian(record[8..]);
            Assert.Equal(PackHash.Hash(pack.AsSpan((int)offset, stored)), BinaryPrimitives.ReadUInt64LittleEndian(record[24..]));
        }
    }

    [Fact]
    public async Task ReadEntryAsync_CorruptBlock_Throws()
    {
        byte[] pack = await SmallPackAsync();
        for (int at = 16; at < Footer(pack).IndexOffset; at += 7)
        {
            pack[at] ^= 0x5A;
        }

        string path = Path.Combine(Root, "corrupt.fpk");
        await File.WriteAllBytesAsync(path, pack);
        await using PackReader reader = await PackReader.OpenAsync(path);
        await Assert.ThrowsAsync<InvalidDataException>(() => reader.ReadEntryAsync("dir1/f1.bin"));
    }

    /// <summary>The first block is read and decoded while the pack opens; its failure is the load's, which it fails.</summary>
    [Fact]
    public async Task LoadAllAsync_FirstBlockCorrupt_OpensThenFailsTheLoad()
    {
        byte[] pack = await SmallPackAsync();
        pack[16] ^= 0xFF; // the first stored byte: an LZ4 token, or raw data
        pack[17] ^= 0xFF;
        string path = Path.Combine(Root, "corrupt.fpk");
        await File.WriteAllBytesAsync(path, pack);
        var pool = new CountingPool();

        await using (PackReader reader = await PackReader.OpenAsync(path, new PackReaderOptions { BufferPool = pool }))
        {
            InvalidDataException error = await Assert.ThrowsAsync<InvalidDataException>(async () =>
            {
                await foreach (LoadedFile entry in reader.LoadAllAsync())
                {
                    entry.Dispose();
                }
            });
            Assert.Matches("block 0|entry 0", error.Message);
        }

        pool.AssertAllReturned();
    }

    /// <summary>A reader that never loads the whole pack rents nothing for the block read while it opened.</summary>
    [Fact]
    public async Task OpenAsync_ClosedWithoutLoading_LeavesNothingRented()
    {
        await File.WriteAllBytesAsync(PackPath, await SmallPackAsync());
        var pool = new CountingPool();

        PackReader reader = await PackReader.OpenAsync(PackPath, new PackReaderOptions { BufferPool = pool });
        reader.Dispose();

        Assert.Equal(0, pool.RentCount);
        await Assert.ThrowsAsync<ObjectDisposedException>(() => reader.ReadEntryAsync("f0.bin"));
    }

    [UnixFact("a ':' in a file name, which Windows keeps for drive letters and streams")]
    public async Task CreateAsync_NameWithColon_ThrowsIOException()
    {
        WriteFile(Path.Combine("src", "a:b.txt"), 3);

        IOException error = await Assert.ThrowsAsync<IOException>(() => PackWriter.CreateAsync(PackPath, Source));
        Assert.Contains("a:b.txt", error.Message, StringComparison.Ordinal);
        Assert.False(File.Exists(PackPath));
    }
}
