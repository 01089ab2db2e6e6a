using FastLoad.Engine;
using FastLoad.FileSystem;
using FastLoad.Shared;
using FastLoad.Tests.Infrastructure;
using Microsoft.Extensions.Time.Testing;

namespace FastLoad.Tests.Parallelism;

public class AdaptiveParallelismTests : TempDirectoryTestBase
{
    private static readonly Func<LoadedFile, CancellationToken, ValueTask> Ignore = (_, _) => ValueTask.CompletedTask;

    private void WriteSmallFiles(int count)
    {
        for (int i = 0; i < count; i++)
        {
            WriteFile($"f{i:D4}.bin", 4096, seed: i);
        }
    }

    [Fact]
    public async Task Load_PinnedParallelism_NeverAdapts()
    {
        WriteSmallFiles(200);

        LoadSummary summary = await new FileLoader(new FileLoaderOptions { MaxDegreeOfParallelism = 5 }).LoadAsync(FileSet.FromDirectory(Root), Ignore);

        Assert.Equal(5, summary.InitialDegreeOfParallelism);
        Assert.Equal(5, summary.DegreeOfParallelism);
        Assert.Equal([5], summary.ParallelismHistory);
    }

    [Theory]
    [InlineData(StorageKind.Rotational, 64)]
    [InlineData(StorageKind.SolidState, 64)]
    [InlineData(StorageKind.Unknown, 64)]
    [InlineData(StorageKind.Network, 64)]
    public async Task Load_StorageKindOverride_SetsTheInitialParallelismForSmallFiles(StorageKind kind, int expected)
    {
        // A set this small is read by direct readers, one per four files and at most 64, whatever the core count; a
        // spinning disk gets the pipeline's window in physical order instead, 64 deep. (RingReaderTests has the ring's depths.)
        WriteSmallFiles(300);
        var loader = new FileLoader(new FileLoaderOptions { Storage = kind, Scheduling = IoScheduling.DedicatedThreads });

        LoadSummary summary = await loader.LoadAsync(FileSet.FromDirectory(Root), Ignore);

        Assert.Equal(expected, summary.InitialDegreeOfParallelism);
        Assert.Equal(expected, summary.ParallelismHistory[0]);
        Assert.All(summary.ParallelismHistory, limit => Assert.InRange(limit, 1, 300));
    }

    [Fact]
    public async Task Load_LargeSetOnOneDevice_DirectReadersReadItAll()
    {
        // The pipeline would take over at its deeper queue for small files (128); the direct readers start at most 64.
        int count = DirectReaders.AdaptiveThreshold + 100;
        WriteSmallFiles(count);

        var options = new FileLoaderOptions { Storage = StorageKind.SolidState, Scheduling = IoScheduling.DedicatedThreads };
        LoadSummary summary = await new FileLoader(options).LoadAsync(FileSet.FromDirectory(Root), Ignore);

        Assert.Equal(count, summary.FileCount);
        Assert.Equal(64, summary.InitialDegreeOfParallelism);
        Assert.Equal(64, summary.ParallelismHistory[0]);
    }

    [Fact]
    public async Task Load_LargeSet_ControllerMovesTheDirectReadersAndEveryFileArrives()
    {
        // Each read advances the controller's clock, so its windows keep closing while the readers work and its trials
        // move the limit. Threads above the limit must wait, come back when it rises, and leave when the load ends,
        // with every buffer returned.
        int count = 3000;
        for (int i = 0; i < count; i++)
        {
            WriteFile($"f{i:D4}.bin", 1024, seed: i);
        }

        // A device that slows with depth: each read costs the controller's clock 1 ms per buffer out, so that fewer
        // reads at once are measurably faster and the controller has a direction to take. (At a cost independent of
        // the depth, every trial would be decided by how completions happened to fall into 50 ms windows.)
        // The first reader attaches the controller once it has described the storage (then the load is logged as
        // starting); the others read meanwhile. On a busy machine they could read most of the set before that, leaving
        // the controller too few windows for a trial, so reads wait for it here.
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);
        Task controllerAttached = LoggedAsync(FastLoadEventId.LoadStarting);
        var time = new FakeTimeProvider();
        DateTimeOffset started = time.GetUtcNow();
        CountingPool? pool = null;
        pool = new CountingPool
        {
            OnRent = _ =>
            {
                controllerAttached.Wait(TimeSpan.FromSeconds(30));
                time.Advance(TimeSpan.FromMilliseconds(Math.Max(1, pool!.Outstanding)));
            },
        };
        var options = new FileLoaderOptions { Storage = StorageKind.SolidState, BufferPool = pool, Scheduling = IoScheduling.DedicatedThreads };
        var loader = new FileLoader(options, loggerFactory, timeProvider: time);
        long bytes = 0;

        LoadSummary summary = await loader.LoadAsync(
            FileSet.FromDirectory(Root),
            (file, _) =>
            {
                Assert.Equal(Contents(1024, int.Parse(Path.GetFileNameWithoutExtension(file.Path)[1..])), file.Data.ToArray());
                Interlocked.Add(ref bytes, file.Length);
                return ValueTask.CompletedTask;
            });

        Assert.Equal(count, summary.FileCount);
        Assert.Equal(count * 1024L, bytes);
        Assert.Equal(64, summary.InitialDegreeOfParallelism);
        // What the controller had to go on, should it move nothing: a window is 50 ms of its clock.
        Assert.True(
            summary.ParallelismHistory.Count > 1,
            $"history: {string.Join(", ", summary.ParallelismHistory)}; {pool.RentCount} rents, {(time.GetUtcNow() - started).TotalMilliseconds} ms of the controller's clock");
        pool.AssertAllReturned();

        // Subscribed before the load starts, so no record can pass unseen.
        async Task LoggedAsync(int eventId)
        {
            await foreach (FakeLogRecord record in logs.GetLogsAsync())
            {
                if (record.Id.Id == eventId)
                {
                    return;
                }
            }
        }
    }

    [Fact]
    public async Task Load_LargeFilesWithSmallBudget_InitialParallelismBoundedByTheBudget()
    {
        for (int i = 0; i < 20; i++)
        {
            WriteFile($"f{i}.bin", 1 << 20, seed: i);
        }

        // The pool's threads: the pipeline reads the whole set and sizes its queue from the budget.
        var loader = new FileLoader(new FileLoaderOptions { MemoryBudget = 4 << 20, Storage = StorageKind.SolidState, Scheduling = IoScheduling.ThreadPool });

        LoadSummary summary = await loader.LoadAsync(FileSet.FromDirectory(Root), Ignore);

        Assert.Equal(4, summary.InitialDegreeOfParallelism);
        Assert.All(summary.ParallelismHistory, limit => Assert.InRange(limit, 1, 4));
        Assert.InRange(summary.PeakBytesInFlight, 1 << 20, 4 << 20);
    }

    [Fact]
    public async Task Load_ReaderThreadsUnderABudgetForAFewFiles_SettleOnTheThreadsTheBudgetFeeds()
    {
        // 64 KiB files against a 256 KiB budget: half of it for reads is two files, so more threads would only wait.
        for (int i = 0; i < 200; i++)
        {
            WriteFile($"f{i:D3}.bin", 60_000, seed: i);
        }

        var loader = new FileLoader(new FileLoaderOptions { MemoryBudget = 256 * 1024, Scheduling = IoScheduling.DedicatedThreads });

        LoadSummary summary = await loader.LoadAsync(FileSet.FromDirectory(Root), Ignore);

        Assert.Equal(200, summary.FileCount);
        Assert.Equal(2, summary.DegreeOfParallelism);
        Assert.InRange(summary.PeakBytesInFlight, 64 * 1024, 256 * 1024);
    }

    [Fact]
    public async Task Load_ReaderThreadsThatStartAfterTheCallerReadEverything_SettleOnTheThreadsTheBudgetFeeds()
    {
        // On a busy machine the consumer's thread can read the whole set before the first reader thread runs: the
        // files it read count towards the budget's limit as the threads' would.
        for (int i = 0; i < 200; i++)
        {
            WriteFile($"f{i:D3}.bin", 60_000, seed: i);
        }

        using var everyFileTaken = new ManualResetEventSlim();
        var hooks = new LoadTestHooks { OnReaderThreadStart = () => everyFileTaken.Wait(TimeSpan.FromSeconds(30)) };
        var loader = new FileLoader(new FileLoaderOptions { MemoryBudget = 256 * 1024, Scheduling = IoScheduling.DedicatedThreads }, hooks);
        int taken = 0;

        LoadSummary summary = await loader.LoadAsync(FileSet.FromDirectory(Root), (_, _) =>
        {
            if (Interlocked.Increment(ref taken) == 200)
            {
                everyFileTaken.Set();
            }

            return ValueTask.CompletedTask;
        });

        Assert.True(everyFileTaken.IsSet);
        Assert.Equal(200, summary.FileCount);
        Assert.Equal(1, summary.PeakConcurrentReads);
        Assert.Equal(2, summary.DegreeOfParallelism);
    }

    [Fact]
    public async Task Load_ReportsTheStorageDevice()
    {
        WriteSmallFiles(3);

        LoadSummary summary = await new FileLoader().LoadAsync(FileSet.FromDirectory(Root), Ignore);

        Assert.NotNull(summary.Storage);
        Assert.False(string.IsNullOrEmpty(summary.Storage.Name));
    }

    [Fact]
    public void Constructor_PhysicalOrderOnWithInputOrdering_ThrowsNamingBoth()
    {
        var ex = Assert.Throws<ArgumentException>(() => new FileLoader(new FileLoaderOptions { PhysicalOrder = PhysicalOrder.On, Ordering = LoadOrdering.Input }));

        Assert.Contains("PhysicalOrder", ex.Message);
        Assert.Contains("Completion", ex.Message);
    }

    [Fact]
    public void Defaults_AdaptiveDetectAuto()
    {
        var options = new FileLoaderOptions();

        Assert.True(options.Adaptive);
        Assert.Null(options.Storage);
        Assert.Equal(PhysicalOrder.Auto, options.PhysicalOrder);
    }

    [LinuxFact("FIEMAP extents, allocated by fsync; Windows has its own test")]
    public async Task Load_PhysicalOrderOn_ReadsInOrderOfFirstExtent()
    {
        var paths = Enumerable.Range(0, 40).Select(i => WriteFile($"f{i:D2}.bin", 8192, seed: i)).ToList();
        foreach (string path in paths)
        {
            PageCache.Evict(path); // fsync: extents are allocated, not delayed.
        }

        var readOrder = new List<string>();
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { PhysicalOrder = PhysicalOrder.On, MaxDegreeOfParallelism = 1, BufferPool = pool });

        await loader.LoadAsync(
            FileSet.FromPaths(Enumerable.Reverse(paths)),
            (file, _) =>
            {
                readOrder.Add(file.Path);
                return ValueTask.CompletedTask;
            });

        ulong[] offsets = readOrder.Select(PhysicalLayout.FirstExtentOffset).ToArray();
        Assert.DoesNotContain(ulong.MaxValue, offsets);
        Assert.Equal(offsets.Order(), offsets);
        pool.AssertAllReturned();
    }
}
