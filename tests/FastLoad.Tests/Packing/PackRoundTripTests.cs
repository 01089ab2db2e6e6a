using FastLoad.Shared;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Packing;

/// <summary>What goes into a pack comes out, byte for byte, by every way of reading it.</summary>
public sealed class PackRoundTripTests : PackTestBase
{
    public static TheoryData<string, int, int> Sizes()
    {
        var grid = new TheoryData<string, int, int>();
        foreach (string kind in new[] { TestData.Text, TestData.Random })
        {
            foreach (int blockSize in new[] { SmallBlock, 64 * 1024 })
            {
                foreach (int size in new[] { 0, 1, 4095, 4096, 4097, blockSize - 1, blockSize, blockSize + 1, 3 * 1024 * 1024 }.Distinct())
                {
                    grid.Add(kind, blockSize, size);
                }
            }
        }

        return grid;
    }

    [Theory]
    [MemberData(nameof(Sizes))]
    public async Task LoadAllAsync_AnySize_ReturnsTheSameBytes(string kind, int blockSize, int size)
    {
        Dictionary<string, byte[]> files = WriteSource(kind, size, 1, size, 0);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = blockSize });

        Dictionary<string, byte[]> loaded = await LoadAllAsync(PackPath);

        Assert.Equal(files.Keys.Order(StringComparer.Ordinal), loaded.Keys.Order(StringComparer.Ordinal));
        foreach ((string name, byte[] data) in files)
        {
            Assert.Equal(data, loaded[name]);
        }
    }

    [Theory]
    [MemberData(nameof(Sizes))]
    public async Task ReadEntryAsync_AnySize_ReturnsTheSameBytes(string kind, int blockSize, int size)
    {
        Dictionary<string, byte[]> files = WriteSource(kind, 7, size, 1);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = blockSize });

        await using PackReader reader = await PackReader.OpenAsync(PackPath);
        foreach ((string name, byte[] data) in files.Reverse())
        {
            Assert.Equal(data, (await reader.ReadEntryAsync(name)).ToArray());
        }
    }

    [Theory]
    [InlineData(0)]
    [InlineData(3)]
    public async Task LoadAllAsync_NoDataAtAll_ReturnsEmptyEntries(int emptyFiles)
    {
        Directory.CreateDirectory(Source);
        WriteSource(TestData.Text, new int[emptyFiles]);
        await PackWriter.CreateAsync(PackPath, Source);

        Dictionary<string, byte[]> loaded = await LoadAllAsync(PackPath);

        Assert.Equal(emptyFiles, loaded.Count);
        Assert.All(loaded.Values, Assert.Empty);
        Assert.Equal(16 + 24 + (32 * emptyFiles) + loaded.Keys.Sum(name => name.Length) + 32, new FileInfo(PackPath).Length);
    }

    [Fact]
    public async Task CreateAsync_SameInputTwice_WritesTheSameBytes()
    {
        WriteSource(TestData.Mixed, 100, 70_000, 0, 5, 300_000, 4096);
        string second = Path.Combine(Root, "second.fpk");
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = 16 * 1024 });
        await PackWriter.CreateAsync(second, FileSet.FromDirectory(Source), new PackOptions { BlockSize = 16 * 1024 });

        Assert.Equal(await File.ReadAllBytesAsync(PackPath), await File.ReadAllBytesAsync(second));
    }

    [Fact]
    public async Task CreateAsync_CompressibleAndIncompressible_StoresLz4OrRaw()
    {
        WriteSource(TestData.Text, 1 << 20);
        await PackWriter.CreateAsync(PackPath, Source);
        long text = new FileInfo(PackPath).Length;
        WriteSource(TestData.Random, 1 << 20);
        await PackWriter.CreateAsync(PackPath, Source);
        long random = new FileInfo(PackPath).Length;

        Assert.True(text < (1 << 20) * 0.6, $"text packed to {text} bytes");
        Assert.InRange(random, 1 << 20, (1 << 20) + 4096);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(9)]
    [InlineData(10)]
    [InlineData(12)]
    public async Task CreateAsync_AnyLevel_ReturnsTheSameBytes(int level)
    {
        Dictionary<string, byte[]> files = WriteSource(TestData.Mixed, 100, 70_000, 0, 5, 300_000, 4096);
        WriteFile(Path.Combine("src", "noise.bin"), files["noise.bin"] = TestData.Create(TestData.Random, 50_000, seed: 99));
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = 16 * 1024, Level = level });

        Dictionary<string, byte[]> loaded = await LoadAllAsync(PackPath);

        Assert.Equal(files.Keys.Order(StringComparer.Ordinal), loaded.Keys.Order(StringComparer.Ordinal));
        foreach ((string name, byte[] data) in files)
        {
            Assert.Equal(data, loaded[name]);
        }
    }

    [Fact]
    public async Task CreateAsync_HigherLevel_PacksTextSmaller()
    {
        WriteSource(TestData.Text, 1 << 20);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { Level = 0 });
        long fast = new FileInfo(PackPath).Length;
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { Level = 9 });
        long hc = new FileInfo(PackPath).Length;
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { Level = 12 });
        long max = new FileInfo(PackPath).Length;

        Assert.True(hc < fast, $"level 9 packed to {hc} bytes, level 0 to {fast}");
        Assert.True(max <= hc, $"level 12 packed to {max} bytes, level 9 to {hc}");
    }

    /// <summary>Incompressible data is stored raw at every level, without the slower levels' attempts changing a byte.</summary>
    [Fact]
    public async Task CreateAsync_IncompressibleDataAnyLevel_WritesTheSamePack()
    {
        WriteSource(TestData.Random, 3 << 20);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { Level = 0 });
        byte[] fast = await File.ReadAllBytesAsync(PackPath);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { Level = 9 });
        byte[] hc = await File.ReadAllBytesAsync(PackPath);

        Assert.Equal(fast, hc);
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(13)]
    public void CreateAsync_LevelOutOfRange_ThrowsBeforeStarting(int level)
    {
        var error = Assert.Throws<ArgumentException>(() => { _ = PackWriter.CreateAsync(PackPath, Root, new PackOptions { Level = level }); });
        Assert.Contains(nameof(PackOptions.Level), error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Entries_PackedDirectory_NamesAreRelativeWithSlashes()
    {
        WriteSource(TestData.Text, 1, 2, 3, 4);
        await PackWriter.CreateAsync(PackPath, Source);

        await using PackReader reader = await PackReader.OpenAsync(PackPath);
        Assert.Equal(["dir0/f3.bin", "dir1/f1.bin", "f0.bin", "f2.bin"], reader.Entries.Select(entry => entry.Name));
        Assert.Equal([4L, 2, 1, 3], reader.Entries.Select(entry => entry.Length));
    }

    [Fact]
    public async Task LoadAllAsync_SmallBudgetAndCountingPool_ReturnsEveryBuffer()
    {
        WriteSource(TestData.Mixed, 200_000, 1, 90_000, 0, 500_000);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = 32 * 1024 });
        var pool = new CountingPool();

        Dictionary<string, byte[]> loaded = await LoadAllAsync(PackPath, new PackReaderOptions { MemoryBudget = 64 * 1024, BufferPool = pool });

        Assert.Equal(5, loaded.Count);
        pool.AssertAllReturned();
        Assert.True(pool.PeakRequestedOutstanding <= 64 * 1024 + 500_000 + (2 * 64 * 1024), $"peak {pool.PeakRequestedOutstanding}");
    }

    [Fact]
    public async Task LoadAllAsync_EntriesLargerThanABlock_PeakBytesHeldStayWithinTheBudget()
    {
        const int Block = 1024 * 1024;
        const long Budget = 8L * 1024 * 1024;
        WriteSource(TestData.Zeros, Enumerable.Repeat(3 * Block, 12).ToArray()); // compressible: a block in flight holds about what it is charged
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = Block });
        var pool = new CountingPool();

        Dictionary<string, byte[]> loaded = await LoadAllAsync(PackPath, new PackReaderOptions { MemoryBudget = Budget, BufferPool = pool });

        Assert.Equal(12, loaded.Count);
        pool.AssertAllReturned();
        Assert.True(pool.PeakRequestedOutstanding <= Budget, $"peak {pool.PeakRequestedOutstanding} bytes held, budget {Budget}");
    }

    [Fact]
    public async Task LoadAllAsync_StoppedEarly_ReturnsEveryBuffer()
    {
        WriteSource(TestData.Mixed, 200_000, 1, 90_000, 0, 500_000);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = 32 * 1024 });
        var pool = new CountingPool();

        await using (PackReader reader = await PackReader.OpenAsync(PackPath, new PackReaderOptions { BufferPool = pool }))
        {
            await foreach (LoadedFile entry in reader.LoadAllAsync())
            {
                entry.Dispose();
                break;
            }
        }

        pool.AssertAllReturned();
    }

    [Fact]
    public async Task LoadAllAsync_Canceled_ThrowsAndReturnsEveryBuffer()
    {
        WriteSource(TestData.Random, 2_000_000, 3_000_000);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = 16 * 1024 });
        var pool = new CountingPool();
        using var cancel = new CancellationTokenSource();

        await using (PackReader reader = await PackReader.OpenAsync(PackPath, new PackReaderOptions { BufferPool = pool }))
        {
            await Assert.ThrowsAnyAsync<OperationCanceledException>(async () =>
            {
                await foreach (LoadedFile entry in reader.LoadAllAsync(cancel.Token))
                {
                    entry.Dispose();
                    await cancel.CancelAsync();
                }
            });
        }

        pool.AssertAllReturned();
    }

    [Fact]
    public async Task LoadAllAsync_EntriesEndingAtBlockEdgesAndEmptyOnes_ReturnsTheSameBytesInOrder()
    {
        // Names sort as packed: an entry that fills block 0, empty entries on the edge, one ending on the next edge, one
        // over three blocks, and empty entries at the very end of the data.
        int[] sizes = [SmallBlock, 0, SmallBlock - 10, 10, 0, (2 * SmallBlock) + 1, SmallBlock - 1, 0, 0];
        var files = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        for (int i = 0; i < sizes.Length; i++)
        {
            byte[] data = TestData.Create(TestData.Mixed, sizes[i], seed: i + 20);
            WriteFile($"src/e{i:D2}.bin", data);
            files.Add($"e{i:D2}.bin", data);
        }

        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = SmallBlock });
        var pool = new CountingPool();
        var order = new List<string>();
        await using (PackReader reader = await PackReader.OpenAsync(PackPath, new PackReaderOptions { BufferPool = pool }))
        {
            await foreach (LoadedFile entry in reader.LoadAllAsync())
            {
                using (entry)
                {
                    order.Add(entry.Path);
                    Assert.Equal(files[entry.Path], entry.Data.ToArray());
                }
            }
        }

        Assert.Equal(files.Keys.Order(StringComparer.Ordinal), order);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task LoadAllAsync_EntryNotMatchingItsHashInsideABlock_HandsOverTheEntriesBeforeItThenThrows()
    {
        WriteFile("src/a.bin", TestData.Create(TestData.Random, 100, seed: 30));
        WriteFile("src/b.bin", TestData.Create(TestData.Random, 100, seed: 31));
        WriteFile("src/c.bin", TestData.Create(TestData.Random, 100, seed: 32));
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = SmallBlock });
        // The block is intact; c.bin's hash in the index is not, which only the entry hashes tell.
        byte[] pack = EditIndex(await File.ReadAllBytesAsync(PackPath), index => index[EntryRecord(index, 2) + 24] ^= 0x01);
        await File.WriteAllBytesAsync(PackPath, pack);
        var pool = new CountingPool();
        var handedOver = new List<string>();

        await using (PackReader reader = await PackReader.OpenAsync(PackPath, new PackReaderOptions { BufferPool = pool, VerifyEntryHashes = true }))
        {
            InvalidDataException error = await Assert.ThrowsAsync<InvalidDataException>(async () =>
            {
                await foreach (LoadedFile entry in reader.LoadAllAsync())
                {
                    using (entry)
                    {
                        handedOver.Add(entry.Path);
                    }
                }
            });
            Assert.Contains("'c.bin'", error.Message, StringComparison.Ordinal);
        }

        Assert.Equal(["a.bin", "b.bin"], handedOver);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task LoadAllAsync_BlockDamaged_HandsOverTheEntriesOfTheBlocksBeforeItThenThrows()
    {
        WriteFile("src/a.bin", TestData.Create(TestData.Random, 3000, seed: 30));
        WriteFile("src/b.bin", TestData.Create(TestData.Random, 3000, seed: 31)); // over the edge of blocks 0 and 1
        WriteFile("src/c.bin", TestData.Create(TestData.Random, 3000, seed: 32));
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = SmallBlock });
        byte[] pack = await File.ReadAllBytesAsync(PackPath);
        pack[16 + SmallBlock + 500] ^= 0x01; // random bytes are stored raw: block 1 starts one block in
        await File.WriteAllBytesAsync(PackPath, pack);
        var pool = new CountingPool();
        var handedOver = new List<string>();

        await using (PackReader reader = await PackReader.OpenAsync(PackPath, new PackReaderOptions { BufferPool = pool }))
        {
            InvalidDataException error = await Assert.ThrowsAsync<InvalidDataException>(async () =>
            {
                await foreach (LoadedFile entry in reader.LoadAllAsync())
                {
                    using (entry)
                    {
                        handedOver.Add(entry.Path);
                    }
                }
            });
            Assert.Contains("block 1 does not match its hash", error.Message, StringComparison.Ordinal);
        }

        Assert.Equal(["a.bin"], handedOver);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task ExtractAsync_Pack_WritesTheSameTree()
    {
        Dictionary<string, byte[]> files = WriteSource(TestData.Mixed, 10, 0, 70_000, 5);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = SmallBlock });
        string target = Path.Combine(Root, "out");

        await using PackReader reader = await PackReader.OpenAsync(PackPath);
        await reader.ExtractAsync(target);
        await reader.ExtractAsync(target);

        foreach ((string name, byte[] data) in files)
        {
            Assert.Equal(data, await File.ReadAllBytesAsync(Path.Combine(target, name)));
        }
    }

    [Fact]
    public async Task CreateAsync_FileSetOfPaths_NamesRelativeToCommonFolder()
    {
        WriteSource(TestData.Text, 1, 2, 3);
        string[] paths = [Path.Combine(Source, "dir1", "f1.bin"), Path.Combine(Source, "f2.bin")];
        await PackWriter.CreateAsync(PackPath, FileSet.FromPaths(paths));

        await using PackReader reader = await PackReader.OpenAsync(PackPath);
        Assert.Equal(["dir1/f1.bin", "f2.bin"], reader.Entries.Select(entry => entry.Name));
    }

    [Fact]
    public void CreateAsync_OptionOutOfRange_ThrowsBeforeStarting()
    {
        var error = Assert.Throws<ArgumentException>(() => { _ = PackWriter.CreateAsync(PackPath, Root, new PackOptions { BlockSize = 100 }); });
        Assert.Contains(nameof(PackOptions.BlockSize), error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task CreateAsync_SyntheticCompressibleSet_PacksAboutTwoToOne()
    {
        IReadOnlyList<string> paths = SyntheticFileSet.Create(Source, 100, 2 * 1024, 128 * 1024, compressible: true);
        await PackWriter.CreateAsync(PackPath, Source);

        double ratio = (double)new FileInfo(PackPath).Length / paths.Sum(path => new FileInfo(path).Length);
        Assert.InRange(ratio, 0.4, 0.6);
    }

    [Fact]
    public async Task CreateAsync_MissingFile_ThrowsAndLeavesNoPack()
    {
        WriteSource(TestData.Text, 200_000, 300_000);
        string[] paths = [Path.Combine(Source, "f0.bin"), Path.Combine(Source, "missing.bin")];

        await Assert.ThrowsAnyAsync<IOException>(() => PackWriter.CreateAsync(PackPath, FileSet.FromPaths(paths), new PackOptions { BlockSize = SmallBlock }));

        Assert.Empty(Directory.EnumerateFiles(Root, "*.fpk*"));
    }

    [Fact]
    public void OpenAsync_BudgetOutOfRange_ThrowsBeforeStarting()
    {
        var error = Assert.Throws<ArgumentException>(() => { _ = PackReader.OpenAsync(PackPath, new PackReaderOptions { MemoryBudget = 10 }); });
        Assert.Contains(nameof(PackReaderOptions.MemoryBudget), error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void PackOptions_Defaults_ArePinned()
    {
        var options = new PackOptions();
        Assert.Equal(1024 * 1024, options.BlockSize);
        Assert.Equal(3, options.Level);
        Assert.Equal(90, options.RawThresholdPercent);
    }

    [Fact]
    public async Task CreateAsync_FileLargerThanAnEntryHolds_ThrowsNamingItAndLeavesNoPack()
    {
        string huge = Path.Combine(Source, "huge.bin");
        Directory.CreateDirectory(Source);
        using (var stream = new FileStream(huge, FileMode.Create, FileAccess.Write))
        {
            stream.SetLength((long)Array.MaxLength + 1); // Sparse: no disk space, read as zeros.
        }

        IOException error = await Assert.ThrowsAsync<IOException>(() => PackWriter.CreateAsync(PackPath, Source));

        Assert.Contains(huge, error.Message, StringComparison.Ordinal);
        Assert.False(File.Exists(PackPath));
    }
}
