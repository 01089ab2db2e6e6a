using System.Diagnostics;
using System.Globalization;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reliability;

/// <summary>
/// Thousands of loads stopped at random points: canceled from outside, from the read threads, from the consumer; a
/// consumer that throws once or on every call from some point on. None may hang, leak a buffer, lose the error or
/// surface it twice, or leave a task exception unobserved. The unobserved-exception check is process-wide, so
/// these run alone. Seeds are fixed: a failure reproduces with the round it names.
/// </summary>
[Collection(ProcessWide.Name)]
public class FaultSoakTests : TempDirectoryTestBase
{
    private const int Rounds = 1000;
    private const int GoodFiles = 48;

    private static readonly TimeSpan NoHang = TimeSpan.FromSeconds(30);

    private readonly ITestOutputHelper _output;
    private readonly List<string> _paths;

    public FaultSoakTests(ITestOutputHelper output)
    {
        _output = output;
        var random = new Random(3);
        _paths = Enumerable.Range(0, GoodFiles).Select(i => WriteFile($"f{i:D2}.bin", random.Next(0, 16 * 1024), seed: i)).ToList();
        _paths.Insert(10, Path.Combine(Root, "missing-1.bin"));
        _paths.Insert(30, Path.Combine(Root, "missing-2.bin"));
    }

    private int FileCount => _paths.Count;

    // The same engine code as on Linux, thousands of times: minutes under Wine against seconds on Linux.
    private const string ThousandsOfLoads = "thousands of loads, which take minutes there and seconds on Linux";

    [NotUnderWineFact(ThousandsOfLoads)]
    public async Task LoadAsync_CanceledAtRandomPointsThousandsOfTimes_EndsCanceledOrCompleteAndReturnsEveryBuffer()
    {
        using var unobserved = new UnobservedTaskExceptions();
        var random = new Random(101);
        var started = Stopwatch.StartNew();
        int canceled = 0;

        for (int round = 0; round < Rounds; round++)
        {
            var pool = new CountingPool();
            FileLoader loader = RandomLoader(random, pool);
            using var cancel = new CancellationTokenSource();
            int cancelAtFile = -1;
            switch (random.Next(4))
            {
                case 0:
                    cancel.CancelAfter(TimeSpan.FromMilliseconds(random.Next(0, 5)));
                    break;
                case 1:
                    // From a read thread, between open and read: the cancellation callbacks then run there.
                    int cancelAtRent = random.Next(0, GoodFiles);
                    pool.OnRent = _ =>
                    {
                        if (pool.RentCount == cancelAtRent)
                        {
                            cancel.Cancel();
                        }
                    };
                    break;
                default:
                    cancelAtFile = random.Next(0, FileCount + 1); // Sometimes never: the load completes.
                    break;
            }

            bool useConsumer = random.Next(2) == 0;
            int delivered = 0;
            Task<int> load = useConsumer
                ? ConsumeAsync(loader, cancel.Token, async file =>
                {
                    if (Interlocked.Increment(ref delivered) == cancelAtFile)
                    {
                        await cancel.CancelAsync();
                    }
                })
                : EnumerateAsync(loader, cancel.Token, async file =>
                {
                    if (++delivered == cancelAtFile)
                    {
                        await cancel.CancelAsync();
                    }
                });

            try
            {
                int results = await load.WaitAsync(NoHang);
                Assert.True(results == FileCount, $"round {round}: completed with {results} of {FileCount} results");
            }
            catch (OperationCanceledException)
            {
                Assert.True(cancel.IsCancellationRequested, $"round {round}: canceled without a cancellation");
                canceled++;
            }

            pool.AssertAllReturned($"round {round}");
        }

        unobserved.AssertNone();
        _output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{Rounds} canceled loads ({canceled} ended canceled) in {started.Elapsed.TotalSeconds:F1} s"));
    }

    [NotUnderWineFact(ThousandsOfLoads)]
    public async Task Consumer_ThrowsAtRandomPointsThousandsOfTimes_SurfacesItsFirstExceptionOnce()
    {
        using var unobserved = new UnobservedTaskExceptions();
        var random = new Random(202);
        var started = Stopwatch.StartNew();

        for (int round = 0; round < Rounds; round++)
        {
            var pool = new CountingPool();
            FileLoader loader = RandomLoader(random, pool, consumerParallelism: random.Next(1, 9));
            int throwFrom = random.Next(1, GoodFiles + 1);
            bool everyCallFromThen = random.Next(2) == 0;
            bool ownCancellation = random.Next(4) == 0;
            bool afterAwait = random.Next(2) == 0;
            var thrown = new System.Collections.Concurrent.ConcurrentQueue<Exception>();
            int calls = 0;

            async Task OnFile()
            {
                int call = Interlocked.Increment(ref calls);
                if (afterAwait)
                {
                    await Task.Yield();
                }

                if (call == throwFrom || (everyCallFromThen && call > throwFrom))
                {
                    Exception ex = ownCancellation
                        ? new OperationCanceledException($"round {round} call {call}")
                        : new InvalidDataException($"round {round} call {call}");
                    thrown.Enqueue(ex);
                    throw ex;
                }
            }

            // A third of the rounds throw from the body of an await foreach instead of a consumer callback.
            Task load = random.Next(3) == 0
                ? EnumerateAsync(loader, CancellationToken.None, _ => OnFile())
                : loader.LoadAsync(FileSet.FromPaths(_paths), async (_, _) => await OnFile());

            Exception? surfaced = null;
            try
            {
                await load.WaitAsync(NoHang);
            }
            catch (Exception ex) when (ex is not TimeoutException)
            {
                surfaced = ex;
            }

            // Once: one exception of the consumer's own, as thrown, never wrapped or aggregated with the others.
            Assert.True(surfaced is not null, $"round {round}: the consumer threw and the load succeeded");
            Assert.True(thrown.Contains(surfaced), $"round {round}: surfaced {surfaced.GetType().Name} '{surfaced.Message}', not one the consumer threw");
            Assert.Single(load.Exception?.InnerExceptions ?? [surfaced]);
            if (!everyCallFromThen)
            {
                Assert.Same(thrown.Single(), surfaced);
            }

            pool.AssertAllReturned($"round {round}");
        }

        unobserved.AssertNone();
        _output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{Rounds} loads with a throwing consumer in {started.Elapsed.TotalSeconds:F1} s"));
    }

    [NotUnderWineFact(ThousandsOfLoads)]
    public async Task Consumer_ThrowsWhileTheLoadIsCanceledThousandsOfTimes_SurfacesOneOfTheTwoAndReturnsEveryBuffer()
    {
        using var unobserved = new UnobservedTaskExceptions();
        var random = new Random(303);

        for (int round = 0; round < Rounds; round++)
        {
            var pool = new CountingPool();
            FileLoader loader = RandomLoader(random, pool, consumerParallelism: random.Next(1, 5));
            using var cancel = new CancellationTokenSource();
            int at = random.Next(1, GoodFiles + 1);
            var boom = new InvalidDataException($"round {round}");
            int calls = 0;
            Task canceling = Task.CompletedTask;

            Task<LoadSummary> load = loader.LoadAsync(
                FileSet.FromPaths(_paths),
                (_, _) =>
                {
                    if (Interlocked.Increment(ref calls) == at)
                    {
                        // Both at once, in either order: whichever wins, exactly one of them comes out.
                        canceling = Task.Run(cancel.Cancel);
                        throw boom;
                    }

                    return ValueTask.CompletedTask;
                },
                cancel.Token);

            Exception surfaced = await Assert.ThrowsAnyAsync<Exception>(() => load.WaitAsync(NoHang));
            await canceling.WaitAsync(NoHang); // Before the source is disposed.

            Assert.True(ReferenceEquals(surfaced, boom) || surfaced is OperationCanceledException, $"round {round}: surfaced {surfaced}");
            pool.AssertAllReturned($"round {round}");
        }

        unobserved.AssertNone();
    }

    private static FileLoader RandomLoader(Random random, CountingPool pool, int consumerParallelism = 1) => new(new FileLoaderOptions
    {
        BufferPool = pool,
        ErrorHandling = LoadErrorHandling.Collect,
        Scheduling = (IoScheduling)random.Next(3), // The rings (the default), reader threads, the thread pool.
        Ordering = random.Next(2) == 0 ? LoadOrdering.Completion : LoadOrdering.Input,
        MaxDegreeOfParallelism = random.Next(1, 33),
        MemoryBudget = random.Next(64 * 1024, 1 << 20),
        ConsumerParallelism = consumerParallelism,
    });

    /// <summary>Loads through the consumer callback; returns the number of results (files loaded plus failures).</summary>
    private async Task<int> ConsumeAsync(FileLoader loader, CancellationToken cancellationToken, Func<LoadedFile, Task> onFile)
    {
        LoadSummary summary = await loader.LoadAsync(FileSet.FromPaths(_paths), async (file, _) => await onFile(file), cancellationToken);
        return summary.FileCount + summary.Failures.Count;
    }

    /// <summary>Loads through the enumerable, disposing each file; returns the number of results.</summary>
    private async Task<int> EnumerateAsync(FileLoader loader, CancellationToken cancellationToken, Func<LoadedFile, Task> onFile)
    {
        int results = 0;
        await foreach (LoadedFile file in loader.LoadAsync(FileSet.FromPaths(_paths), cancellationToken))
        {
            using (file)
            {
                results++;
                await onFile(file);
            }
        }

        return results;
    }
}
