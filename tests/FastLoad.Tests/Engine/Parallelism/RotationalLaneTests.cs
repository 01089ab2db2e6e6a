using System.Collections.Concurrent;
using FastLoad.Engine;
using FastLoad.FileSystem;
using FastLoad.Shared;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Parallelism;

/// <summary>
/// A spinning disk's small files are read in physical order through a fixed window of 64 reads: the order spares a
/// drive without command queuing its seeks, the window lets a queuing drive pick by rotation.
/// </summary>
public class RotationalLaneTests : TempDirectoryTestBase
{
    private const int FileCount = 400;

    [Fact]
    public async Task Load_OnASpinningDisk_ReadsInPhysicalOrderThroughAFixedWindowOf64()
    {
        // Written in one order, listed in the reverse one, so that the set's order is not the physical one.
        List<string> written = WriteSet(4096);
        List<string> listed = [.. Enumerable.Reverse(written)];
        var handedOut = new ConcurrentQueue<string>();
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);
        var options = new FileLoaderOptions { Storage = StorageKind.Rotational, Scheduling = IoScheduling.DedicatedThreads };
        var loader = new FileLoader(options, new LoadTestHooks { OnLaneHandOut = handedOut.Enqueue }, loggerFactory);

        LoadSummary summary = await loader.LoadAsync(FileSet.FromPaths(listed), (_, _) => ValueTask.CompletedTask);

        Assert.Equal(FileCount, summary.FileCount);
        Assert.Empty(summary.Failures);
        Assert.Equal(64, summary.InitialDegreeOfParallelism);
        Assert.Equal([64], summary.ParallelismHistory);
        Assert.InRange(summary.PeakConcurrentReads, 1, 64);
        Assert.Contains(
            logs.GetSnapshot(),
            entry => entry.Message.Contains("as Rotational: 64 reads at once (ceiling 64, adaptive False, physical order True)", StringComparison.Ordinal));

        // The lane hands the files to its readers in physical order (set order where a position is unknown), and the
        // peak above bounds the reads at once to the window of 64.
        List<string> physical = [.. listed.Select((path, index) => (path, index))
            .OrderBy(file => PhysicalLayout.FirstExtentOffset(file.path))
            .ThenBy(file => file.index)
            .Select(file => file.path)];
        Assert.Equal(physical, handedOut);
    }

    [LinuxFact("posix_fadvise")]
    public async Task Load_OnASpinningDisk_SendsEachFilesFirstReadInTheOrderTheLaneHandsThemOut()
    {
        // A drive without command queuing serves reads in the order they arrive: 64 threads must not send theirs in
        // the order they happen to run. Each thread is held up a random moment before it opens its file.
        List<string> written = WriteSet(4096);
        var handedOut = new ConcurrentQueue<string>();
        var issued = new ConcurrentQueue<string>();
        var options = new FileLoaderOptions { Storage = StorageKind.Rotational, Scheduling = IoScheduling.DedicatedThreads };
        var hooks = new LoadTestHooks
        {
            OnLaneHandOut = handedOut.Enqueue,
            OnLaneRead = path => Thread.Sleep(path.GetHashCode(StringComparison.Ordinal) & 3),
            OnReadIssued = issued.Enqueue,
            ReadIssueMaxWait = TimeSpan.FromMinutes(1),
        };

        LoadSummary summary = await new FileLoader(options, hooks).LoadAsync(FileSet.FromPaths(written), (_, _) => ValueTask.CompletedTask);

        Assert.Equal(FileCount, summary.FileCount);
        Assert.Equal(FileCount, handedOut.Count);
        Assert.Equal(handedOut, issued);
    }

    [LinuxFact("posix_fadvise")]
    public async Task Load_OnASpinningDiskWithRoomForTwoFiles_NoFileHoldsBytesWhileWaitingForItsTurn()
    {
        // The turn comes before the budget: a file that took bytes before the one ahead of it (which waits for bytes)
        // must not then wait for that one's turn. With turns that never time out, that would hang the load.
        const int Length = 64 * 1024;
        List<string> written = WriteSet(Length);
        var options = new FileLoaderOptions
        {
            Storage = StorageKind.Rotational, Scheduling = IoScheduling.DedicatedThreads, MemoryBudget = 2 * Length,
            MaxDegreeOfParallelism = 64, PhysicalOrder = PhysicalOrder.On, // 64 files in flight, room for 2
        };
        var hooks = new LoadTestHooks
        {
            OnLaneRead = path => Thread.Sleep(path.GetHashCode(StringComparison.Ordinal) & 1),
            ReadIssueMaxWait = TimeSpan.FromMinutes(10),
        };
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        timeout.CancelAfter(TimeSpan.FromMinutes(1));

        LoadSummary summary = await new FileLoader(options, hooks).LoadAsync(FileSet.FromPaths(written), (_, _) => ValueTask.CompletedTask, timeout.Token);

        Assert.Equal(FileCount, summary.FileCount);
        Assert.Empty(summary.Failures);
    }

    [IoUringFact]
    public async Task Load_SetNotCachedOnASpinningDisk_ReadsEveryFileInPhysicalOrderFromTheFirst()
    {
        // The rings would read their first files in the set's order before any waits, each a seek on a spinning disk:
        // described first, the whole set goes to the pipeline's lane.
        List<string> written = WriteEvicted();
        var handedOut = new ConcurrentQueue<string>();
        var hooks = new LoadTestHooks { OnLaneHandOut = handedOut.Enqueue, DeviceDescription = () => SpinningDisk };

        LoadSummary summary = await new FileLoader(new FileLoaderOptions(), hooks).LoadAsync(FileSet.FromPaths(written), (_, _) => ValueTask.CompletedTask);

        Assert.Equal(FileCount, summary.FileCount);
        Assert.Empty(summary.Failures);
        Assert.Equal(FileCount, handedOut.Count);
    }

    [IoUringFact]
    public async Task Load_SetNotCachedOnADeviceThatCannotSpin_NeverDescribesIt()
    {
        // Only a spinning disk changes how the rings read once one waits: on a device sysfs says cannot spin (an SSD, a
        // virtio disk), the load spares the description's first-time code.
        Assert.SkipWhen(StorageProbe.MaySpin(Root), "The temporary folder may lie on a spinning disk: its description is due.");
        List<string> written = WriteEvicted();
        int descriptions = 0;
        var hooks = new LoadTestHooks { OnDescribeDevice = () => Interlocked.Increment(ref descriptions) };

        LoadSummary summary = await new FileLoader(new FileLoaderOptions(), hooks).LoadAsync(FileSet.FromPaths(written), (_, _) => ValueTask.CompletedTask);

        Assert.Equal(FileCount, summary.FileCount);
        Assert.Empty(summary.Failures);
        Assert.Equal(0, Volatile.Read(ref descriptions));
    }

    [IoUringFact]
    public async Task Load_SetCachedOnASpinningDisk_StartsOnTheRings()
    {
        // Its first file cached, a load reads on the rings, which need no description until a read waits.
        List<string> written = WriteSet(4096);
        WriteBack(written);
        var handedOut = new ConcurrentQueue<string>();
        var hooks = new LoadTestHooks { OnLaneHandOut = handedOut.Enqueue, DeviceDescription = () => SpinningDisk };

        LoadSummary summary = await new FileLoader(new FileLoaderOptions(), hooks).LoadAsync(FileSet.FromPaths(written), (_, _) => ValueTask.CompletedTask);

        Assert.Equal(FileCount, summary.FileCount);
        Assert.InRange(handedOut.Count, 0, FileCount - 1);
    }

    [Fact]
    public async Task Load_OnASpinningDiskInInputOrder_KeepsTheShallowQueue()
    {
        // Delivered in the set's order, the files are read in it too: nothing spares a drive without command queuing
        // its seeks, and every file read ahead of the next one delivered waits in memory. Few reads at once.
        for (int i = 0; i < FileCount; i++)
        {
            WriteFile($"f{i:D3}.bin", 4096, seed: i);
        }

        var options = new FileLoaderOptions
        {
            Storage = StorageKind.Rotational, Ordering = LoadOrdering.Input, Scheduling = IoScheduling.DedicatedThreads,
        };

        LoadSummary summary = await new FileLoader(options).LoadAsync(FileSet.FromDirectory(Root), (_, _) => ValueTask.CompletedTask);

        // The reader threads read at most the shallow depth at once; the consumer's thread reads beside them while it
        // waits for the next file in order, so one more can be in flight.
        Assert.Equal(FileCount, summary.FileCount);
        Assert.InRange(summary.PeakConcurrentReads, 1, ParallelismPolicy.RotationalShallowDepth + 1);
    }

    private static StorageDevice SpinningDisk { get; } =
        new("8:0", "sda", StorageKind.Rotational, StorageBus.Scsi, isRotational: true, queueSize: 32, model: "test disk", fileSystem: "ext4");

    private List<string> WriteSet(int length) => [.. Enumerable.Range(0, FileCount).Select(i => WriteFile($"f{i:D3}.bin", length, seed: i))];

    /// <summary>The set written back and evicted; the test is skipped where its file system keeps files cached anyway.</summary>
    private List<string> WriteEvicted()
    {
        List<string> written = WriteSet(4096);
        WriteBack(written);
        foreach (string path in written)
        {
            PageCache.Evict(path);
        }

        Assert.SkipWhen(PageCache.GetResidentBytes(written[0]) > 0, "The temporary folder's file system keeps files cached (tmpfs): no read waits for a device.");
        return written;
    }
}
