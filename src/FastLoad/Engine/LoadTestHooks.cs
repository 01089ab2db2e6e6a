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

    /// <summary>Clears O_NONBLOCK on every file a ring opens, as on a kernel before Linux 5.15.</summary>
    public bool ClearNonBlocking { get; init; }

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
