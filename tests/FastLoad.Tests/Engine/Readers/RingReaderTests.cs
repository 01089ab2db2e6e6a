using FastLoad.Engine;
using FastLoad.FileSystem;
using FastLoad.Shared;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Loading;

/// <summary>
/// Loads through the kernel's io_uring ring (<see cref="IoScheduling.IoUring"/>, the default on Linux): every size and
/// kind of file, the budget, failures, the depth, and the fallback to threads where the kernel refuses a ring.
/// A load that went through the ring reports its depth (up to 128 files at once) as its parallelism, where reader
/// threads would report one per four files.
/// </summary>
public class RingReaderTests : TempDirectoryTestBase
{
    [IoUringTheory]
    [InlineData(0, LoadOrdering.Completion, false)]
    [InlineData(1, LoadOrdering.Completion, false)]
    [InlineData(4095, LoadOrdering.Input, false)]
    [InlineData(4096, LoadOrdering.Completion, true)]
    [InlineData(4097, LoadOrdering.Input, true)]
    [InlineData((128 * 1024) + 1, LoadOrdering.Completion, false)] // A native block with the default buffers.
    [InlineData(1 << 20, LoadOrdering.Input, false)]
    [InlineData(1 << 20, LoadOrdering.Completion, true)]
    [InlineData((16 << 20) + 1, LoadOrdering.Completion, false)] // Large: read on the consumer's thread with its own strategy.
    public async Task Load_ThroughTheRing_EveryFileArrivesByteForByte(int size, LoadOrdering ordering, bool ownPool)
    {
        int count = size > 1 << 20 ? 3 : 40;
        List<string> paths = [.. Enumerable.Range(0, count).Select(i => WriteFile($"f{i:D2}.bin", size, seed: i))];
        var pool = ownPool ? new CountingPool() : null;
        var loader = new FileLoader(new FileLoaderOptions { Ordering = ordering, BufferPool = pool });

        var loaded = await Loads.CollectAsync(loader, FileSet.FromPaths(paths));

        Assert.Equal(count, loaded.Count);
        foreach ((string path, int index, byte[]? data, Exception? error) in loaded)
        {
            Assert.Null(error);
            Assert.Equal(Contents(size, index), data);
            Assert.Equal(paths[index], path);
        }

        if (ordering == LoadOrdering.Input)
        {
            Assert.Equal(Enumerable.Range(0, count), loaded.Select(file => file.Index));
        }

        pool?.AssertAllReturned();
    }

    [IoUringTheory]
    [InlineData(10, null, null, LoadOrdering.Completion, 10)]
    [InlineData(300, StorageKind.SolidState, null, LoadOrdering.Completion, 128)]
    [InlineData(300, StorageKind.Unknown, 5, LoadOrdering.Completion, 5)]
    [InlineData(30, StorageKind.Rotational, null, LoadOrdering.Input, 4)]
    public async Task Load_ThroughTheRing_ReadsAsManyFilesAtOnceAsTheSetAndTheStorageAllow(int count, StorageKind? storage, int? pinned, LoadOrdering ordering, int expected)
    {
        for (int i = 0; i < count; i++)
        {
            WriteFile($"f{i:D3}.bin", 2048, seed: i);
        }

        var options = new FileLoaderOptions { Storage = storage, MaxDegreeOfParallelism = pinned, Ordering = ordering };

        LoadSummary summary = await new FileLoader(options).LoadAsync(FileSet.FromDirectory(Root), (_, _) => ValueTask.CompletedTask);

        Assert.Equal(count, summary.FileCount);
        Assert.Equal(expected, summary.DegreeOfParallelism);
        Assert.Equal([expected], summary.ParallelismHistory);
        Assert.InRange(summary.PeakConcurrentReads, 1, expected);
    }

    [IoUringTheory]
    [InlineData(100)] // The consumer's ring alone.
    [InlineData(600)] // And a helper ring per other core.
    public async Task Load_CachedFiles_ReadsAFewAtOnceAndHoldsAFewBuffersAhead(int count)
    {
        List<string> paths = [.. Enumerable.Range(0, count).Select(i => WriteFile($"f{i:D3}.bin", 3000 + i, seed: i))];
        WriteBack(paths);
        var options = new FileLoaderOptions { BufferPool = new CountingPool() };
        var pool = (CountingPool)options.BufferPool;
        int peakOutstanding = 0;
        pool.OnRent = _ => InterlockedMax.TryRaise(ref peakOutstanding, pool.Outstanding);
        int rings = ReadPlan.For(options, StorageKind.Unknown, count, Environment.ProcessorCount).Rings;
        var seen = new bool[count];

        // Just written and written back: every page is cached and clean, so no read waits for the device and the rings
        // stay shallow.
        LoadSummary summary = await new FileLoader(options).LoadAsync(FileSet.FromPaths(paths), (file, _) =>
        {
            Assert.Equal(Contents(3000 + file.Index, file.Index), file.Data.ToArray());
            seen[file.Index] = true;
            return ValueTask.CompletedTask;
        });

        Assert.All(seen, Assert.True);
        Assert.Equal(Math.Min(count, ReadPlan.MaxRingDepth), summary.DegreeOfParallelism); // What the rings may read at once from the device.
        Assert.InRange(summary.PeakConcurrentReads, 1, rings == 1 ? ReadPlan.CachedDepthAlone : ReadPlan.CachedDepth);

        // The narrow delivery window (files claimed and not handed over), and the file the consumer holds.
        int window = rings == 1 ? ReadPlan.CachedDepthAlone : 4 * ReadPlan.CachedDepth * rings;
        Assert.InRange(peakOutstanding, 1, window + 1);
        pool.AssertAllReturned();
    }

    [IoUringFact]
    public async Task Load_FilesOnTheDevice_ReadsAtTheWholeDepthOnceTheRingWaits()
    {
        List<string> paths = [.. Enumerable.Range(0, 100).Select(i => WriteFile($"f{i:D3}.bin", 3000 + i, seed: i))];
        foreach (string path in paths)
        {
            PageCache.Evict(path);
        }

        Assert.SkipWhen(PageCache.GetResidentBytes(paths[0]) > 0, "The temporary folder's file system keeps files cached (tmpfs): no read waits for a device.");
        var seen = new bool[paths.Count];

        LoadSummary summary = await new FileLoader().LoadAsync(FileSet.FromPaths(paths), (file, _) =>
        {
            Assert.Equal(Contents(3000 + file.Index, file.Index), file.Data.ToArray());
            seen[file.Index] = true;
            return ValueTask.CompletedTask;
        });

        Assert.All(seen, Assert.True);
        Assert.Equal(100, summary.FileCount);
        Assert.InRange(summary.PeakConcurrentReads, ReadPlan.CachedDepth + 1, 100);
    }

    [LinuxFact("io_uring, refused by a test hook")]
    public async Task Load_RingRefused_ReadsOnThreadsAndSaysWhy()
    {
        List<string> paths = [.. Enumerable.Range(0, 40).Select(i => WriteFile($"f{i:D2}.bin", 3000, seed: i))];
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);
        var loader = new FileLoader(new FileLoaderOptions { Ordering = LoadOrdering.Input }, new LoadTestHooks { SimulateRingRefusal = true }, loggerFactory);
        int next = 0;

        LoadSummary summary = await loader.LoadAsync(FileSet.FromPaths(paths), (file, _) =>
        {
            Assert.Equal(Contents(3000, next++), file.Data.ToArray());
            return ValueTask.CompletedTask;
        });

        Assert.Equal(40, summary.FileCount);
        Assert.Equal(10, summary.InitialDegreeOfParallelism); // Reader threads: one per four files.
        Assert.Contains(logs.GetSnapshot(), entry => entry.Id.Id == FastLoadEventId.IoUringUnavailable && entry.Message.Contains("refused for a test", StringComparison.Ordinal));
    }

    [IoUringRefusedFact]
    public async Task Load_WhereTheKernelRefusesIoUring_ReadsOnThreadsAndSaysWhy()
    {
        Assert.NotNull(IoUringAvailability.Refusal);
        List<string> paths = [.. Enumerable.Range(0, 300).Select(i => WriteFile($"d{i % 3}/f{i:D3}.bin", 1000 + (i * 997 % 60_000), seed: i))];
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);

        var loaded = await Loads.CollectAsync(new FileLoader(new FileLoaderOptions(), loggerFactory), FileSet.FromPaths(paths));

        Assert.Equal(300, loaded.Count);
        Assert.All(loaded, file => Assert.Equal(Contents(1000 + (file.Index * 997 % 60_000), file.Index), file.Data));
        Assert.Contains(logs.GetSnapshot(), entry => entry.Id.Id == FastLoadEventId.IoUringUnavailable && entry.Message.Contains("io_uring_setup", StringComparison.Ordinal));
    }

    [IoUringFact]
    public async Task Load_ThroughTheRing_PseudoFilesKeepTheirWholeContent()
    {
        // sysfs reports 4096 bytes for a few bytes of text (a short read), /proc reports 0 (read to the end in steps).
        string[] pseudo = ["/sys/devices/system/cpu/online", "/proc/version", "/proc/self/mountinfo"];
        string[] existing = [.. pseudo.Where(File.Exists)];
        Assert.NotEmpty(existing);
        List<string> paths = [.. existing, .. Enumerable.Range(0, 20).Select(i => WriteFile($"f{i}.bin", 100, seed: i))];

        var loaded = await Loads.CollectAsync(new FileLoader(), FileSet.FromPaths(paths));

        foreach (string path in existing)
        {
            byte[] expected = ReadToEnd(path);
            byte[]? data = loaded.Single(file => file.Path == path).Data;
            Assert.NotNull(data);
            Assert.NotEmpty(data);

            // mountinfo may gain a line between the two reads (other tests mount things); the others are stable.
            if (path.EndsWith("mountinfo", StringComparison.Ordinal))
            {
                Assert.StartsWith(System.Text.Encoding.UTF8.GetString(data)[..20], System.Text.Encoding.UTF8.GetString(expected), StringComparison.Ordinal);
            }
            else
            {
                Assert.Equal(expected, data);
            }
        }
    }

    [IoUringFact]
    public async Task Load_ThroughTheRing_EachFailureNamesItsFileAndEveryOtherFileArrives()
    {
        List<string> good = [.. Enumerable.Range(0, 30).Select(i => WriteFile($"f{i:D2}.bin", 5000 + i, seed: i))];
        string missing = Path.Combine(Root, "missing.bin");
        string directory = Path.Combine(Root, "a-directory");
        Directory.CreateDirectory(directory);
        string fifo = Path.Combine(Root, "a-fifo");
        Native.CreateFifo(fifo);
        List<string> paths = [.. good];
        paths.Insert(3, missing);
        paths.Insert(10, directory);
        paths.Insert(20, fifo);
        var pool = new CountingPool();

        var loaded = await Loads.CollectAsync(
            new FileLoader(new FileLoaderOptions { ErrorHandling = LoadErrorHandling.Collect, BufferPool = pool }), FileSet.FromPaths(paths));

        Assert.Equal(paths.Count, loaded.Count);
        Assert.IsType<FileNotFoundException>(loaded.Single(file => file.Path == missing).Error);
        foreach (string bad in new[] { missing, directory, fifo })
        {
            Exception? error = loaded.Single(file => file.Path == bad).Error;
            Assert.NotNull(error);
            Assert.Contains(bad, error.Message, StringComparison.Ordinal);
        }

        Assert.Contains("not a regular file", loaded.Single(file => file.Path == fifo).Error!.Message, StringComparison.Ordinal);
        foreach (string path in good)
        {
            int seed = int.Parse(Path.GetFileNameWithoutExtension(path)[1..]);
            Assert.Equal(Contents(5000 + seed, seed), loaded.Single(file => file.Path == path).Data);
        }

        pool.AssertAllReturned();
    }

    [IoUringFact]
    public async Task Load_ThroughTheRing_BytesInFlightStayWithinTheBudget()
    {
        // Files of 16 KiB against a 64 KiB budget: at most four read or waiting at once, though the ring could take 128.
        for (int i = 0; i < 200; i++)
        {
            WriteFile($"f{i:D3}.bin", 16 * 1024, seed: i);
        }

        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { MemoryBudget = FileLoaderConstants.MinMemoryBudget, BufferPool = pool });
        long bytes = 0;

        LoadSummary summary = await loader.LoadAsync(FileSet.FromDirectory(Root), (file, _) =>
        {
            bytes += file.Length;
            return ValueTask.CompletedTask;
        });

        Assert.Equal(200, summary.FileCount);
        Assert.Equal(200 * 16 * 1024L, bytes);
        Assert.InRange(summary.PeakBytesInFlight, 16 * 1024, FileLoaderConstants.MinMemoryBudget);

        // The consumer holds one more file (the one it is given) beyond what the budget counts.
        Assert.InRange(pool.PeakRequestedOutstanding, 16 * 1024, FileLoaderConstants.MinMemoryBudget + (16 * 1024));
        pool.AssertAllReturned();
    }

    [IoUringFact]
    public async Task Load_ThroughTheRing_PathLongerThanARingSlotIsOpenedTheOrdinaryWay()
    {
        // Five folders of 240 characters: a path of about 1,250 bytes, longer than a slot's 1,024, shorter than PATH_MAX.
        string folder = Path.Combine([.. Enumerable.Range(0, 5).Select(i => new string((char)('a' + i), 240))]);
        string longPath = WriteFile(Path.Combine(folder, "deep.bin"), 3000, seed: 99);
        List<string> paths = [.. Enumerable.Range(0, 20).Select(i => WriteFile($"f{i}.bin", 100, seed: i)), longPath];

        var loaded = await Loads.CollectAsync(new FileLoader(), FileSet.FromPaths(paths));

        Assert.True(System.Text.Encoding.UTF8.GetByteCount(longPath) > 1024);
        Assert.Equal(Contents(3000, 99), loaded.Single(file => file.Path == longPath).Data);
        Assert.All(loaded, file => Assert.Null(file.Error));
    }

    [IoUringFact]
    public async Task Load_ThroughTheRing_LargeFileAtAPathLongerThanASlotIsReadOnAReaderThread()
    {
        // Opened the ordinary way (its path does not fit a slot), then read with a large file's strategies: on a reader
        // thread, like every other large file, not on the thread that drives the ring while nothing else is reaped.
        string folder = Path.Combine([.. Enumerable.Range(0, 5).Select(i => new string((char)('a' + i), 240))]);
        int size = (16 << 20) + 1;
        string longPath = WriteFile(Path.Combine(folder, "large.bin"), size, seed: 98);
        List<string> paths = [.. Enumerable.Range(0, 20).Select(i => WriteFile($"f{i}.bin", 100, seed: i)), longPath];
        string? readBy = null;
        var hooks = new LoadTestHooks { OnBlockingRead = path => readBy ??= path == longPath ? Thread.CurrentThread.Name ?? "unnamed" : null };

        var loaded = await Loads.CollectAsync(new FileLoader(new FileLoaderOptions(), hooks), FileSet.FromPaths(paths));

        Assert.Equal(Contents(size, 98), loaded.Single(file => file.Path == longPath).Data);
        Assert.All(loaded, file => Assert.Null(file.Error));
        Assert.Equal("FastLoad reader", readBy);
    }

    [IoUringFact]
    public async Task Load_OnAKernelThatRefusesReadsOfNonBlockingFiles_ReadsEveryFileInTheRing()
    {
        // Before Linux 5.15 a read of a file opened O_NONBLOCK comes back EAGAIN rather than wait: every file would be
        // read again, one at a time, on the consumer's thread. The ring clears the flag once the file is known regular.
        List<string> paths = [.. Enumerable.Range(0, 40).Select(i => WriteFile($"f{i:D2}.bin", 3000 + i, seed: i))];
        var hooks = new LoadTestHooks { SimulateKernelBefore515 = true };

        var loaded = await Loads.CollectAsync(new FileLoader(new FileLoaderOptions(), hooks), FileSet.FromPaths(paths));

        Assert.Equal(40, loaded.Count);
        Assert.All(loaded, file => Assert.Equal(Contents(3000 + file.Index, file.Index), file.Data));
        Assert.Equal(0, hooks.RingReadsFinishedHere);
    }

    /// <summary>Reads until the end, whatever size the file reports (File.ReadAllBytes trusts it, and fails on sysfs).</summary>
    private static byte[] ReadToEnd(string path)
    {
        using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, bufferSize: 0);
        using var contents = new MemoryStream();
        byte[] buffer = new byte[4096];
        int read;
        while ((read = file.Read(buffer)) > 0)
        {
            contents.Write(buffer, 0, read);
        }

        return contents.ToArray();
    }
}
