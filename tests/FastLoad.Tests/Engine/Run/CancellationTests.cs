using FastLoad.Engine;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Loading;

/// <summary>Stopping a load at any point, or failing in the consumer, returns every buffer and surfaces one error.</summary>
public class CancellationTests : TempDirectoryTestBase
{
    private static readonly TimeSpan NoHang = TimeSpan.FromSeconds(60);

    public CancellationTests()
    {
        var random = new Random(5);
        for (int i = 0; i < 300; i++)
        {
            WriteFile($"d{i % 4}/f{i}.bin", random.Next(0, 64 * 1024), seed: i);
        }
    }

    [Fact]
    public async Task LoadAsync_CanceledBeforeStart_ThrowsAndRentsNothingThatStaysOut()
    {
        var pool = new CountingPool();
        using var cancel = new CancellationTokenSource();
        await cancel.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(
            () => Loads.CollectAsync(new FileLoader(new FileLoaderOptions { BufferPool = pool }), FileSet.FromDirectory(Root), cancel.Token));

        pool.AssertAllReturned();
    }

    [Fact]
    public async Task LoadAsync_BreakAfterFirstFile_ReturnsEveryOtherBuffer()
    {
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool, MaxDegreeOfParallelism = 32 });

        await foreach (LoadedFile file in loader.LoadAsync(FileSet.FromDirectory(Root)))
        {
            file.Dispose();
            break;
        }

        pool.AssertAllReturned();
    }

    [Theory]
    [InlineData(IoScheduling.IoUring, LoadOrdering.Completion)]
    [InlineData(IoScheduling.IoUring, LoadOrdering.Input)]
    [InlineData(IoScheduling.DedicatedThreads, LoadOrdering.Completion)]
    [InlineData(IoScheduling.DedicatedThreads, LoadOrdering.Input)]
    [InlineData(IoScheduling.ThreadPool, LoadOrdering.Completion)]
    [InlineData(IoScheduling.ThreadPool, LoadOrdering.Input)]
    public async Task LoadAsync_CanceledAtRandomPoints_NeverHangsAndReturnsEveryBuffer(IoScheduling scheduling, LoadOrdering ordering)
    {
        var random = new Random(17);
        for (int round = 0; round < 40; round++)
        {
            var pool = new CountingPool();
            var loader = new FileLoader(new FileLoaderOptions
            {
                BufferPool = pool,
                Scheduling = scheduling,
                Ordering = ordering,
                MaxDegreeOfParallelism = random.Next(1, 65),
                MemoryBudget = random.Next(64 * 1024, 4 << 20),
            });
            int stopAfter = random.Next(0, 300);
            using var cancel = new CancellationTokenSource();
            if (random.Next(3) == 0)
            {
                cancel.CancelAfter(TimeSpan.FromMilliseconds(random.Next(0, 20)));
            }

            Task run = Task.Run(async () =>
            {
                int seen = 0;
                await foreach (LoadedFile file in loader.LoadAsync(FileSet.FromDirectory(Root), cancel.Token))
                {
                    file.Dispose();
                    if (++seen == stopAfter)
                    {
                        await cancel.CancelAsync();
                    }
                }
            });

            try
            {
                await run.WaitAsync(NoHang);
            }
            catch (OperationCanceledException)
            {
            }

            pool.AssertAllReturned();
        }
    }

    [Fact]
    public async Task Consumer_Throws_SurfacesThatExceptionOnceAndReturnsEveryBuffer()
    {
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool, ConsumerParallelism = 4 });
        var boom = new InvalidOperationException("consumer failed");
        int calls = 0;

        var ex = await Assert.ThrowsAsync<InvalidOperationException>(() => loader.LoadAsync(
            FileSet.FromDirectory(Root),
            (_, _) => Interlocked.Increment(ref calls) == 10 ? throw boom : ValueTask.CompletedTask)).WaitAsync(NoHang);

        Assert.Same(boom, ex);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task Consumer_ThrowsOperationCanceledOfItsOwn_IsSurfacedNotSwallowed()
    {
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool });
        var own = new OperationCanceledException("the consumer gave up");

        var ex = await Assert.ThrowsAsync<OperationCanceledException>(() => loader.LoadAsync(
            FileSet.FromDirectory(Root),
            (_, _) => throw own)).WaitAsync(NoHang);

        Assert.Same(own, ex);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task Consumer_ThrowsAtRandomPoints_AlwaysSurfacesItsExceptionAndReturnsEveryBuffer()
    {
        var random = new Random(23);
        for (int round = 0; round < 30; round++)
        {
            var pool = new CountingPool();
            var loader = new FileLoader(new FileLoaderOptions
            {
                BufferPool = pool,
                ConsumerParallelism = random.Next(1, 8),
                MaxDegreeOfParallelism = random.Next(1, 65),
            });
            int throwAt = random.Next(1, 300);
            int calls = 0;

            var ex = await Assert.ThrowsAsync<InvalidDataException>(() => loader.LoadAsync(
                FileSet.FromDirectory(Root),
                async (_, token) =>
                {
                    if (Interlocked.Increment(ref calls) == throwAt)
                    {
                        throw new InvalidDataException($"round {round}");
                    }

                    await Task.Yield();
                })).WaitAsync(NoHang);

            Assert.Equal($"round {round}", ex.Message);
            pool.AssertAllReturned();
        }
    }

    [Fact]
    public async Task Consumer_Canceled_ThrowsOperationCanceledAndReturnsEveryBuffer()
    {
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool });
        using var cancel = new CancellationTokenSource();
        int calls = 0;

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => loader.LoadAsync(
            FileSet.FromDirectory(Root),
            async (_, _) =>
            {
                if (++calls == 50)
                {
                    await cancel.CancelAsync();
                }
            },
            cancel.Token)).WaitAsync(NoHang);

        pool.AssertAllReturned();
    }

    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    public async Task Consumer_CancelsWhileConsumingTheLastFile_ReturnsTheSummary(int consumerParallelism)
    {
        // Every file reached the consumer and every call returned: the load completed, one call at a time or several.
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool, ConsumerParallelism = consumerParallelism });
        using var cancel = new CancellationTokenSource();
        int fileCount = Directory.GetFiles(Root, "*", SearchOption.AllDirectories).Length;
        int calls = 0;

        LoadSummary summary = await loader.LoadAsync(
            FileSet.FromDirectory(Root),
            async (_, _) =>
            {
                if (Interlocked.Increment(ref calls) == fileCount)
                {
                    await cancel.CancelAsync();
                }
            },
            cancel.Token).WaitAsync(NoHang);

        Assert.Equal(fileCount, summary.FileCount);
        Assert.Equal(fileCount, calls);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task Consumer_CanceledWhenEveryFileIsReadAlready_ThrowsAndHandsOverNoMore()
    {
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool });
        using var cancel = new CancellationTokenSource();

        // Files that can all be read while the consumer holds the first: through the ring, no more than the load's
        // window of files claimed and not handed over while they are cached (the consumer's thread drives the ring, so
        // nothing is read while it waits); on reader threads, more than the calling thread reads alone.
        int count = IoUringAvailability.Refusal is null ? ReadPlan.CachedDepthAlone : 100;
        string[] paths = Directory.GetFiles(Root, "*", SearchOption.AllDirectories)[..count];
        int fileCount = paths.Length;
        int calls = 0;

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => loader.LoadAsync(
            FileSet.FromPaths(paths),
            async (_, _) =>
            {
                if (++calls == 1)
                {
                    // Every file has a buffer, so every read has started and nothing is left to claim: the files are
                    // (or are about to be) ready, and the stop must still end the load rather than let it drain them.
                    Assert.True(SpinWait.SpinUntil(() => pool.RentCount == fileCount, NoHang));
                    await cancel.CancelAsync();
                }
            },
            cancel.Token)).WaitAsync(NoHang);

        Assert.Equal(1, calls);
        pool.AssertAllReturned();
    }

    [Theory]
    [InlineData(LoadOrdering.Input)]
    [InlineData(LoadOrdering.Completion)]
    public async Task Load_EndsWhileTheStorageIsStillBeingDescribed_DisposesAndReturnsEveryBuffer(LoadOrdering ordering)
    {
        // A few small files are read by the caller and the other readers before the first reader has described the
        // device; disposing then must still account for that reader exactly once.
        var paths = new List<string>();
        for (int i = 0; i < 6; i++)
        {
            paths.Add(WriteFile($"f{i}.bin", i * 1000, seed: i));
        }

        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { Ordering = ordering, BufferPool = pool });
        for (int round = 0; round < 200; round++)
        {
            var files = await Loads.CollectAsync(loader, FileSet.FromPaths(paths)).WaitAsync(TimeSpan.FromSeconds(30));

            Assert.Equal(6, files.Count(file => file.Error is null));
        }

        pool.AssertAllReturned();
    }
}
