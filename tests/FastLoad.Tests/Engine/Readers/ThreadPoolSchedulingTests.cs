using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Loading;

/// <summary>
/// Reads on the shared thread pool under a tight budget. The bytes a read waits for are freed by the consumer, whose
/// continuations need a pool thread: a read that waits for them on its thread starves the consumer, and with the pool
/// capped the load never ends. The test caps the pool for the whole process, so it runs alone.
/// </summary>
[Collection(ProcessWide.Name)]
public class ThreadPoolSchedulingTests : TempDirectoryTestBase
{
    private static readonly TimeSpan NoHang = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task LoadAsync_PoolCappedBudgetTightConsumerAwaits_EveryFileArrivesAndTheBudgetHolds()
    {
        const int FileSize = 20 * 1024;
        const long Budget = 256 * 1024;
        var expected = new Dictionary<string, byte[]>();
        for (int i = 0; i < 100; i++)
        {
            expected[WriteFile($"f{i}.bin", FileSize, seed: i)] = Contents(FileSize, seed: i);
        }

        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions
        {
            MemoryBudget = Budget,
            MaxDegreeOfParallelism = 64,
            Scheduling = IoScheduling.ThreadPool,
            BufferPool = pool,
        });
        var loaded = new Dictionary<string, byte[]>();

        ThreadPool.GetMaxThreads(out int maxWorkers, out int maxCompletionPorts);
        ThreadPool.GetMinThreads(out int minWorkers, out _);
        Assert.True(ThreadPool.SetMaxThreads(Math.Max(minWorkers, Environment.ProcessorCount) + 2, maxCompletionPorts));
        Task<LoadSummary> load;
        bool finished;
        try
        {
            load = loader.LoadAsync(
                FileSet.FromDirectory(Root),
                async (file, cancellationToken) =>
                {
                    lock (loaded)
                    {
                        loaded.Add(file.Path, file.Data.ToArray());
                    }

                    await Task.Delay(1, cancellationToken).ConfigureAwait(false);
                });

            // Waited for on this thread: an await would need one of the capped pool's threads to come back.
            finished = ((IAsyncResult)load).AsyncWaitHandle.WaitOne(NoHang);
        }
        finally
        {
            Assert.True(ThreadPool.SetMaxThreads(maxWorkers, maxCompletionPorts));
        }

        // A load that starved ends once the pool may grow again, so that it leaves nothing behind for the next test.
        Assert.True(((IAsyncResult)load).AsyncWaitHandle.WaitOne(TimeSpan.FromMinutes(2)));
        Assert.True(finished, "The load did not finish with the pool capped: its reads held the threads the consumer needed.");
        LoadSummary summary = await load;
        Assert.Equal(100, summary.FileCount);
        Assert.Equal(expected.Count, loaded.Count);
        Assert.All(loaded, file => Assert.Equal(expected[file.Key], file.Value));
        Assert.InRange(summary.PeakBytesInFlight, FileSize, Budget);
        pool.AssertAllReturned();
    }
}
