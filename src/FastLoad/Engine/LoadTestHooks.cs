using FastLoad.FileSystem;

namespace FastLoad.Engine;

/// <summary>
/// Faults and limits a test puts into a loader's engine, which no option exposes: given to the loader's internal
/// constructor, and passed down to the ring and, through <see cref="FileSystem.ReadSettings"/>, to the readers.
/// </summary>
internal sealed class LoadTestHooks
{
    /// <summary>No hooks: what every loader made through the public constructor runs with.</summary>
    public static LoadTestHooks None { get; } = new();

    /// <summary>Makes the kernel's io_uring look unavailable, as in a sandbox that forbids it.</summary>
    public bool SimulateRingRefusal { get; init; }

    /// <summary>Makes every unbuffered read take the fallback path, as on a file system that refuses them.</summary>
    public bool SimulateUnbufferedRefusal { get; init; }

    /// <summary>Replaces the memory the process can get, so that a test can check the limit without allocating.</summary>
    public Func<long>? AvailableMemory { get; init; }

    /// <summary>
    /// Makes the rings behave as on a kernel before Linux 5.15, where io_uring gives up on reads of a file opened
    /// O_NONBLOCK that would wait (<c>EAGAIN</c>): a read of such a descriptor completes with <c>EAGAIN</c>.
    /// </summary>
    public bool SimulateKernelBefore515 { get; init; }

    /// <summary>Makes the rings' closes complete later, on the kernel's workers, as on file systems whose close is deferred (NFS, FUSE).</summary>
    public bool DeferRingCloses { get; init; }

    /// <summary>Called with a file's path on the thread that reads it with blocking calls (not through a ring).</summary>
    public Action<string>? OnBlockingRead { get; init; }

    /// <summary>Called on each direct reader thread as it starts, before it starts the next or reads: a slow thread start.</summary>
    public Action? OnReaderThreadStart { get; init; }

    /// <summary>Called once a load's first blocking read did not find its bytes in the page cache, before the reader threads held back start.</summary>
    public Action? OnDeviceWaitSeen { get; init; }

    /// <summary>Called before a reader describes the load's storage: a slow device description.</summary>
    public Action? OnDescribeDevice { get; init; }

    /// <summary>Called with a file's path when a pipeline lane's read block takes it; what it throws faults the lane.</summary>
    public Action<string>? OnLaneRead { get; init; }

    /// <summary>Called with a file's path when a pipeline lane hands it to its read block, in the order it hands them out.</summary>
    public Action<string>? OnLaneHandOut { get; init; }

    /// <summary>Called with a file's path once a lane in physical order sent its first read, in its turn (<see cref="ReadIssueOrder"/>).</summary>
    public Action<string>? OnReadIssued { get; init; }

    /// <summary>Replaces how long a lane's read waits for its turn (<see cref="ReadIssueOrder.DefaultMaxWait"/>): a test's threads can be held up longer.</summary>
    public TimeSpan? ReadIssueMaxWait { get; init; }

    /// <summary>Replaces the description of the load's storage (a test's files lie on whatever device holds its temporary folder).</summary>
    public Func<StorageDevice>? DeviceDescription { get; init; }

    /// <summary>Reads a ring did not finish in the kernel, finished by its thread instead (a short read, EAGAIN).</summary>
    public int RingReadsFinishedHere => _ringReadsFinishedHere;

    private int _ringReadsFinishedHere;

    internal void RingReadFinishedHere()
    {
        if (this != None)
        {
            Interlocked.Increment(ref _ringReadsFinishedHere);
        }
    }
}
