using FastLoad.Engine;

namespace FastLoad.Tests.Parallelism;

/// <summary>
/// The read plan as one table: for options, storage, set size and cores, the rings and their depths, the reader threads,
/// whether the consumer's thread reads alone, and the delivery windows.
/// </summary>
public class ReadPlanTests
{
    private const IoScheduling Ring = IoScheduling.IoUring;
    private const LoadOrdering Completion = LoadOrdering.Completion;
    private const LoadOrdering Input = LoadOrdering.Input;

    [Theory]
    // files, storage, ordering, scheduling, pinned, cores -> rings, depth, cached depth, threads, alone, uses rings, thread window, ring window, cached ring window
    [InlineData(10, StorageKind.Unknown, Completion, Ring, null, 2, 1, 10, 8, 3, true, true, 64, 64, 8)] // A few files: one ring, the consumer's.
    [InlineData(16, StorageKind.Unknown, Completion, Ring, null, 2, 1, 16, 8, 4, true, true, 64, 64, 8)]
    [InlineData(17, StorageKind.Unknown, Completion, Ring, null, 2, 1, 17, 8, 5, false, true, 64, 64, 8)]
    [InlineData(100, StorageKind.Unknown, Completion, Ring, null, 2, 1, 100, 8, 25, false, true, 200, 200, 8)] // The first ring takes the set.
    [InlineData(255, StorageKind.Unknown, Completion, Ring, null, 2, 1, 128, 8, 64, false, true, 510, 256, 8)]
    [InlineData(256, StorageKind.Unknown, Completion, Ring, null, 2, 2, 128, 16, 64, false, true, 512, 256, 128)] // A ring per 128 files.
    [InlineData(8022, StorageKind.Unknown, Completion, Ring, null, 2, 2, 128, 16, 64, false, true, 512, 256, 128)] // One per core.
    [InlineData(8022, StorageKind.Unknown, Completion, Ring, null, 16, 16, 128, 16, 64, false, true, 512, 256, 1024)]
    [InlineData(8022, StorageKind.Unknown, Completion, Ring, null, 64, 16, 128, 16, 64, false, true, 512, 256, 1024)] // At least 8 reads a ring.
    [InlineData(8022, StorageKind.Unknown, Input, Ring, null, 2, 1, 128, 8, 64, false, true, 512, 256, 8)] // Input order: one ring.
    [InlineData(8022, StorageKind.Rotational, Completion, Ring, null, 2, 1, 4, 8, 0, false, false, 512, 64, 4)] // The pipeline's lane.
    [InlineData(8022, StorageKind.Rotational, Input, Ring, null, 2, 1, 4, 8, 4, false, true, 512, 64, 4)] // A few reads at once.
    [InlineData(8022, StorageKind.Memory, Completion, Ring, null, 2, 2, 128, 16, 4, false, true, 512, 256, 128)] // Threads bound by the cores.
    [InlineData(8022, StorageKind.Unknown, Completion, IoScheduling.DedicatedThreads, null, 2, 2, 128, 16, 64, false, false, 512, 256, 128)]
    [InlineData(8022, StorageKind.Unknown, Completion, IoScheduling.ThreadPool, null, 2, 2, 128, 16, 0, false, false, 512, 256, 128)]
    [InlineData(100, StorageKind.Unknown, Completion, Ring, 12, 2, 1, 12, 8, 12, false, true, 200, 64, 8)] // Pinned: a promise kept.
    [InlineData(10_000, StorageKind.Unknown, Completion, Ring, 16, 2, 2, 16, 16, 16, false, true, 512, 64, 128)]
    public void For_OptionsStorageSetAndCores_PlansTheRingsThreadsAndWindows(
        int files, StorageKind kind, LoadOrdering ordering, IoScheduling scheduling, int? pinned, int cores,
        int rings, int depth, int cachedDepth, int threads, bool alone, bool usesRings, int threadWindow, int ringWindow, int cachedRingWindow)
    {
        var options = new FileLoaderOptions { Ordering = ordering, Scheduling = scheduling, MaxDegreeOfParallelism = pinned };

        ReadPlan plan = ReadPlan.For(options, kind, files, cores);

        Assert.Equal(
            (rings, depth, cachedDepth, threads, alone, usesRings, threadWindow, ringWindow, cachedRingWindow),
            (plan.Rings, plan.RingDepth, plan.RingCachedDepth, plan.Threads, plan.CallerAlone, plan.UsesRings, plan.ThreadDeliveryWindow, plan.RingDeliveryWindow, plan.RingCachedDeliveryWindow(plan.Rings)));
        Assert.Equal(depth, Enumerable.Range(0, rings).Sum(plan.RingShare));
        Assert.All(Enumerable.Range(0, rings), ring => Assert.InRange(plan.RingShare(ring), depth / rings, (depth / rings) + 1));
    }

    [Theory]
    [InlineData(null, 2, 64, 2)] // Automatic: a thread a core until a read waits for the device (Linux), then the plan's.
    [InlineData(null, 16, 64, 16)]
    [InlineData(12, 2, 12, 12)] // Pinned: the promise from the start.
    public void For_ThreadsWhileCached_AreTheCoresUntilAReadWaitsWhereTheKernelCanTell(int? pinned, int cores, int threads, int whileCachedOnLinux)
    {
        ReadPlan plan = ReadPlan.For(
            new FileLoaderOptions { Scheduling = IoScheduling.DedicatedThreads, MaxDegreeOfParallelism = pinned }, StorageKind.Unknown, 8022, cores);

        Assert.Equal((threads, OperatingSystem.IsLinux() ? whileCachedOnLinux : threads), (plan.Threads, plan.ThreadsWhileCached));
    }

    [Fact]
    public void For_PhysicalOrderOn_LeavesTheSetToThePipeline()
    {
        ReadPlan plan = ReadPlan.For(new FileLoaderOptions { PhysicalOrder = PhysicalOrder.On }, StorageKind.SolidState, 1000, 2);

        Assert.Equal((0, false, false), (plan.Threads, plan.UsesRings, plan.CallerAlone));
    }

    [Fact]
    public void RingCachedDeliveryWindow_HelperRingRefused_IsTheWindowOfTheRingsStarted()
    {
        ReadPlan plan = ReadPlan.For(new FileLoaderOptions(), StorageKind.Unknown, 8022, 4);

        Assert.Equal((4, 16), (plan.Rings, plan.RingCachedDepth));
        Assert.Equal(4 * 16 * 3, plan.RingCachedDeliveryWindow(3));
        Assert.Equal(Math.Min(plan.RingDepth, 16), plan.RingCachedDeliveryWindow(1));
    }
}
