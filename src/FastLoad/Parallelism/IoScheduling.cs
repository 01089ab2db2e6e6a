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
}
