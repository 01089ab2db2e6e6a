namespace FastLoad;

/// <summary>Where the blocking reads of a load run.</summary>
public enum IoScheduling
{
    /// <summary>
    /// On threads the load creates for itself, one per concurrent read. On Linux every .NET file read blocks a
    /// thread, and the shared thread pool adds threads only about twice a second, so this reaches a deep queue at once.
    /// </summary>
    DedicatedThreads = 0,

    /// <summary>On the shared thread pool. Fewer threads, but a deep queue starves the pool until it grows.</summary>
    ThreadPool = 1,

    /// <summary>
    /// Linux: the thread that takes the files submits their opens and reads to the kernel through an io_uring ring,
    /// up to 128 at once, and starts no threads for them; large files keep their strategies. Where the kernel offers
    /// no io_uring (before Linux 5.6, or a sandbox that forbids it) and on other systems, as <see cref="DedicatedThreads"/>.
    /// </summary>
    IoUring = 2,
}
