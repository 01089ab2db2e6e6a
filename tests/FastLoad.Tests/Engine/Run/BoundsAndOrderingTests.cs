using FastLoad.Engine;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Loading;

/// <summary>The loader keeps its promises on concurrency, bytes in flight and order.</summary>
public class BoundsAndOrderingTests : TempDirectoryTestBase
{
    private static readonly Func<LoadedFile, CancellationToken, ValueTask> Ignore = (_, _) => ValueTask.CompletedTask;

    [Theory]
    [InlineData(1)]
    [InlineData(3)]
    [InlineData(16)]
    public async Task Load_PinnedParallelism_NeverRunsMoreReadsAtOnce(int parallelism)
    {
        for (int i = 0; i < 200; i++)
        {
            WriteFile($"f{i}.bin", 4096, seed: i);
        }

        var loader = new FileLoader(new FileLoaderOptions { MaxDegreeOfParallelism = parallelism });

        LoadSummary summary = await loader.LoadAsync(FileSet.FromDirectory(Root), Ignore);

        Assert.Equal(200, summary.FileCount);
        Assert.Equal(parallelism, summary.DegreeOfParallelism);
        Assert.InRange(summary.PeakConcurrentReads, 1, parallelism);
    }

    [Theory]
    [InlineData(IoScheduling.DedicatedThreads)]
    [InlineData(IoScheduling.ThreadPool)]
    public async Task Load_SmallBudget_BytesInFlightStayWithinIt(IoScheduling scheduling)
    {
        const int FileSize = 20 * 1024;
        const long Budget = 256 * 1024;
        for (int i = 0; i < 100; i++)
        {
            WriteFile($"f{i}.bin", FileSize, seed: i);
        }

        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions
        {
            MemoryBudget = Budget,
            MaxDegreeOfParallelism = 64,
            Scheduling = scheduling,
            BufferPool = pool,
        });

        LoadSummary summary = await loader.LoadAsync(
            FileSet.FromDirectory(Root),
            async (_, cancellationToken) => await Task.Delay(1, cancellationToken));

        Assert.Equal(100, summary.FileCount);
        Assert.InRange(summary.PeakBytesInFlight, FileSize, Budget);

        // Held by the loader (within the budget) plus the files handed to the consumer: one running, one offered.
        Assert.InRange(pool.PeakRequestedOutstanding, FileSize, Budget + (2 * FileSize));
        pool.AssertAllReturned();
    }

    [Theory]
    [InlineData(LoadOrdering.Completion)]
    [InlineData(LoadOrdering.Input)]
    public async Task LoadAsync_AutomaticParallelismAndSmallBudget_ConsumerThreadNeverWaitsOnBytesOnlyItFrees(LoadOrdering ordering)
    {
        // The consumer's thread reads while nothing is ready; holding a file while it waits for budget that only
        // handing files over frees would hang the load.
        const int FileSize = 100_000;
        const long Budget = 256 * 1024;
        var expected = new Dictionary<string, byte[]>();
        for (int i = 0; i < 40; i++)
        {
            expected[WriteFile($"f{i}.bin", FileSize, seed: i)] = Contents(FileSize, seed: i);
        }

        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { MemoryBudget = Budget, Ordering = ordering, BufferPool = pool });
        var loaded = new List<(string Path, byte[] Data)>();

        LoadSummary summary = await loader.LoadAsync(
            FileSet.FromDirectory(Root),
            (file, _) =>
            {
                loaded.Add((file.Path, file.Data.ToArray()));
                return ValueTask.CompletedTask;
            }).WaitAsync(TimeSpan.FromSeconds(60));

        // In input order the file delivery waits for may go beyond the budget (see MemoryBudget).
        Assert.Equal(40, loaded.Count);
        Assert.All(loaded, file => Assert.Equal(expected[file.Path], file.Data));
        Assert.InRange(summary.PeakBytesInFlight, FileSize, ordering == LoadOrdering.Input ? Budget + FileSize : Budget);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task LoadAsync_InputOrderingWithTheNextFileWaiting_HoldsAtMostOneFileBeyondTheBudget()
    {
        // Files 2 and 3 take the budget; file 0, which delivery waits for, goes beyond it; file 1 waits for bytes. When
        // file 0 is handed over, its bytes must leave the budget before file 1 may go beyond it in its turn.
        const int FileSize = 100_000;
        const long Budget = 256 * 1024;
        var paths = new string[8];
        for (int i = 0; i < paths.Length; i++)
        {
            paths[i] = WriteFile($"f{i}.bin", FileSize, seed: i);
        }

        int rents = 0;
        using var laterFilesHeld = new ManualResetEventSlim();
        var pool = new CountingPool
        {
            OnRent = _ =>
            {
                if (Interlocked.Increment(ref rents) == 2)
                {
                    laterFilesHeld.Set();
                }
            },
        };
        var hooks = new LoadTestHooks
        {
            OnBlockingRead = path =>
            {
                if (path == paths[0] || path == paths[1])
                {
                    laterFilesHeld.Wait(TimeSpan.FromSeconds(30));
                }

                if (path == paths[0])
                {
                    // Lets file 1's reader reach the budget and wait there first.
                    Thread.Sleep(200);
                }
            },
        };
        var options = new FileLoaderOptions
        {
            MemoryBudget = Budget,
            MaxDegreeOfParallelism = 4,
            Ordering = LoadOrdering.Input,
            Scheduling = IoScheduling.DedicatedThreads,
            BufferPool = pool,
        };
        var loaded = new List<string>();

        LoadSummary summary = await new FileLoader(options, hooks).LoadAsync(
            FileSet.FromPaths(paths),
            (file, _) =>
            {
                loaded.Add(file.Path);
                return ValueTask.CompletedTask;
            }).WaitAsync(TimeSpan.FromSeconds(60));

        Assert.Equal(paths, loaded);
        Assert.InRange(summary.PeakBytesInFlight, FileSize, Budget + FileSize);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task Load_FileLargerThanBudget_LoadsAloneAndIntact()
    {
        const long Budget = 64 * 1024;
        byte[] large = Contents(1 << 20, seed: 99);
        var paths = new List<string>();
        for (int i = 0; i < 10; i++)
        {
            paths.Add(WriteFile($"small{i}.bin", 10_000, seed: i));
        }

        paths.Insert(5, WriteFile("large.bin", large));
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { MemoryBudget = Budget, MaxDegreeOfParallelism = 8, BufferPool = pool });
        byte[]? loaded = null;

        LoadSummary summary = await loader.LoadAsync(
            FileSet.FromPaths(paths),
            (file, _) =>
            {
                if (file.Path.EndsWith("large.bin", StringComparison.Ordinal))
                {
                    loaded = file.Data.ToArray();
                }

                return ValueTask.CompletedTask;
            });

        Assert.Equal(11, summary.FileCount);
        Assert.Equal(large, loaded);

        // Alone: when the large file was admitted, nothing else was held, so the peak is exactly its size.
        Assert.Equal(large.Length, summary.PeakBytesInFlight);
        pool.AssertAllReturned();
    }

    [Theory]
    [InlineData(IoScheduling.DedicatedThreads)]
    [InlineData(IoScheduling.ThreadPool)]
    public async Task LoadAsync_InputOrdering_DeliversInTheOrderOfTheSet(IoScheduling scheduling)
    {
        var random = new Random(11);
        var paths = Enumerable.Range(0, 400)
            .Select(i => WriteFile($"f{i}.bin", random.Next(0, 200_000), seed: i))
            .OrderBy(_ => random.Next())
            .ToList();
        var loader = new FileLoader(new FileLoaderOptions
        {
            Ordering = LoadOrdering.Input,
            MaxDegreeOfParallelism = 32,
            Scheduling = scheduling,
        });

        var results = await Loads.CollectAsync(loader, FileSet.FromPaths(paths));

        Assert.Equal(paths, results.Select(r => r.Path));
        Assert.Equal(Enumerable.Range(0, 400), results.Select(r => r.Index));
    }

    [Fact]
    public async Task LoadAsync_InputOrderingWithSmallBudget_DoesNotDeadlock()
    {
        // A large file first, then many small ones: later files wait for it within the budget, never forever.
        var paths = new List<string> { WriteFile("first.bin", 600_000) };
        paths.AddRange(Enumerable.Range(0, 100).Select(i => WriteFile($"f{i}.bin", 30_000, seed: i)));
        var loader = new FileLoader(new FileLoaderOptions { Ordering = LoadOrdering.Input, MemoryBudget = 128 * 1024 });

        var results = await Loads.CollectAsync(loader, FileSet.FromPaths(paths)).WaitAsync(TimeSpan.FromSeconds(60));

        Assert.Equal(paths, results.Select(r => r.Path));
    }

    [Fact]
    public async Task LoadAsync_AutomaticParallelism_SmallFilesGetADeepQueue()
    {
        for (int i = 0; i < 300; i++)
        {
            WriteFile($"f{i}.bin", 8192, seed: i);
        }

        // The pool's threads: the pipeline reads the whole set (direct readers would take a set this small).
        var loader = new FileLoader(new FileLoaderOptions { Storage = StorageKind.SolidState, Adaptive = false, Scheduling = IoScheduling.ThreadPool });

        LoadSummary summary = await loader.LoadAsync(FileSet.FromDirectory(Root), Ignore);

        // Small files on an SSD: a deep queue, far beyond the core count (docs/how-it-works.md explains the policy).
        Assert.Equal(128, summary.InitialDegreeOfParallelism);
        Assert.Equal(128, summary.DegreeOfParallelism);
        Assert.Equal([128], summary.ParallelismHistory);
    }

    [Fact]
    public async Task LoadAsync_EmptySet_CompletesWithNothing()
    {
        LoadSummary summary = await new FileLoader().LoadAsync(FileSet.FromPaths([]), Ignore);

        Assert.Equal(0, summary.FileCount);
        Assert.Empty(summary.Failures);
    }
}
