namespace FastLoad.FileSystem;

/// <summary>
/// Whether the calling thread should wait for work in flight rather than await it. A new process has no thread pool
/// threads yet to run an asynchronous continuation on: starting them (several milliseconds of the runtime's first calls
/// under the JIT) costs more than the work a load waits for, so where no synchronization context needs the thread
/// back, the caller waits, as a loop of blocking reads would.
/// </summary>
internal static class CallerWaits
{
    [ThreadStatic]
    private static bool t_forced;

    /// <summary>Whether waiting on the calling thread is cheaper than an asynchronous continuation now.</summary>
    public static bool Cheaper => t_forced || (SynchronizationContext.Current is null && ThreadPool.ThreadCount == 0);

    /// <summary>
    /// Makes <see cref="Cheaper"/> true on this thread, as in a new process (tests run where the pool has started).
    /// </summary>
    internal static bool ForcedOnThisThread
    {
        get => t_forced;
        set => t_forced = value;
    }
}
