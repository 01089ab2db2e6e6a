namespace FastLoad;

/// <summary>Where the blocking reads of a load run.</summary>
/// <remarks>The default, <see cref="IoUring"/>, is also <c>default(IoScheduling)</c>.</remarks>
public enum IoScheduling
{
    /// <summary>
    /// Linux: the thread that takes the files submits their opens and reads to the kernel through an io_uring ring,
    /// up to 128 at once, and a large set gets one more ring per core, each driven by a thread of its own (the kernel
    /// copies cached files on the thread that submits them); large files keep their strategies. Where the kernel
    /// offers no io_uring (before Linux 5.6, or a sandbox that forbids it) and on other systems, as
    /// <see cref="DedicatedThreads"/>.
    /// </summary>
    IoUring = 0,

    /// <summary>
    /// On threads the load creates for itself, one per concurrent read. On Linux every .NET file read blocks a
    /// thread, and the shared thread pool adds threads only about twice a second, so this reaches a deep queue at once.
    /// </summary>
    DedicatedThreads = 1,

    /// <summary>
    /// On the shared thread pool. Fewer threads, but a deep queue of blocking reads starves the pool until it grows; a
    /// read waiting for the memory budget holds no thread.
    /// </summary>
    ThreadPool = 2,
}
