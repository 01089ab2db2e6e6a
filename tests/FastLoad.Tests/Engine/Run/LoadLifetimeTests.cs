using System.Reflection;
using System.Runtime.CompilerServices;
using FastLoad.Engine;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reliability;

/// <summary>
/// A load's enumerator used after it was disposed, or dropped without being disposed: an exception in the first case,
/// and in the second every descriptor, buffer and ring it held goes back once the GC finds it unreachable.
/// </summary>
[Collection(ProcessWide.Name)]
public class LoadLifetimeTests : TempDirectoryTestBase
{
    private const int FileCount = 600;
    private static readonly TimeSpan NoHang = TimeSpan.FromSeconds(30);

    public LoadLifetimeTests()
    {
        for (int i = 0; i < FileCount; i++)
        {
            WriteFile($"f{i:D3}.bin", 1000 + (i * 37 % 20_000), seed: i);
        }
    }

    [Theory]
    [InlineData(IoScheduling.IoUring)]
    [InlineData(IoScheduling.DedicatedThreads)]
    [InlineData(IoScheduling.ThreadPool)]
    public async Task MoveNextAsync_AfterDisposeAsync_ThrowsObjectDisposedException(IoScheduling scheduling)
    {
        var loader = new FileLoader(new FileLoaderOptions { Scheduling = scheduling });
        IAsyncEnumerator<LoadedFile> files = loader.LoadAsync(FileSet.FromDirectory(Root)).GetAsyncEnumerator();
        Assert.True(await files.MoveNextAsync());
        files.Current.Dispose();
        await files.DisposeAsync();

        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await files.MoveNextAsync());
        await files.DisposeAsync(); // Again: nothing to do.
    }

    [Fact]
    public async Task Load_FailsAfterItWasDisposed_LogsTheErrorAndTheProcessGoesOn()
    {
        // The first reader thread describes the storage without holding the load up, so it can still be at it once the
        // load is over and released; what fails there has nobody left to tell, and must not end the process.
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);
        var loadReturned = new ManualResetEventSlim(); // Not disposed: the describing thread waits on it after the load.
        var hooks = new LoadTestHooks
        {
            OnDescribeDevice = () =>
            {
                loadReturned.Wait(NoHang);
                throw new InvalidOperationException("The storage could not be described.");
            },
        };
        var loader = new FileLoader(new FileLoaderOptions { Scheduling = IoScheduling.DedicatedThreads }, hooks, loggerFactory);

        LoadSummary summary;
        try
        {
            summary = await loader.LoadAsync(FileSet.FromDirectory(Root), (_, _) => ValueTask.CompletedTask);
        }
        finally
        {
            loadReturned.Set();
        }

        Assert.Equal(FileCount, summary.FileCount);
        Assert.True(
            SpinWait.SpinUntil(() => logs.GetSnapshot().Any(entry => entry.Id.Id == FastLoadEventId.LoadFailedAfterDispose), NoHang),
            "the late failure was not logged");
        FakeLogRecord logged = logs.GetSnapshot().Single(entry => entry.Id.Id == FastLoadEventId.LoadFailedAfterDispose);
        Assert.Equal(LogLevel.Warning, logged.Level);
        Assert.Equal("The storage could not be described.", Assert.IsType<InvalidOperationException>(logged.Exception).Message);
    }

    [LinuxTheory("/proc/self/fd")]
    [InlineData(IoScheduling.IoUring)]
    [InlineData(IoScheduling.DedicatedThreads)]
    public async Task Enumerator_DroppedWithoutDisposing_ReturnsItsDescriptorsAndBuffersOnceCollected(IoScheduling scheduling)
    {
        int baseline = ProcessWide.OpenDescriptorsBaseline();
        var pool = new CountingPool();

        WeakReference load = await TakeOneFileAndDropTheEnumerator(
            new FileLoader(new FileLoaderOptions { Scheduling = scheduling, BufferPool = pool }), FileSet.FromDirectory(Root));

        // The finalizer stops the load and disposes it on a reader thread; the readers then finish what is in flight.
        // The load itself must be gone, not only the counts at zero: between two files its readers have nothing out,
        // and they rent again until the dispose stops them. The dispose holds the load until its readers have exited.
        bool returned = SpinWait.SpinUntil(
            () =>
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
                return !load.IsAlive && pool.Outstanding == 0 && ProcessWide.OpenDescriptors() <= baseline;
            },
            NoHang);
        Assert.True(
            returned,
            $"load alive: {load.IsAlive}, {pool.Outstanding} buffers out, {ProcessWide.OpenDescriptors() - baseline} descriptors over the baseline");
        pool.AssertAllReturned();
    }

    /// <returns>A weak reference to the enumerator's load, which its readers and its dispose hold until they are done.</returns>
    // Not inlined, so that no reference to the enumerator outlives the call on the test's stack.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static async Task<WeakReference> TakeOneFileAndDropTheEnumerator(FileLoader loader, FileSet set)
    {
        IAsyncEnumerator<LoadedFile> files = loader.LoadAsync(set).GetAsyncEnumerator();
        Assert.True(await files.MoveNextAsync());
        files.Current.Dispose();
        return new WeakReference(files.GetType().GetFields(BindingFlags.Instance | BindingFlags.NonPublic).Single(field => field.FieldType == typeof(LoadRun)).GetValue(files));
    }
}
