namespace FastLoad.Engine;

/// <summary>
/// Runs work on the thread pool after the next garbage collection, without starting a thread or queuing anything now:
/// for work a load wants done soon but not on its own path (the runtime trims <c>ArrayPool.Shared</c> from a
/// collection the same way).
/// </summary>
/// <remarks>
/// The finalizer only queues the work: run on the finalizer's thread, a <c>MeterListener</c>'s callback (user code)
/// would run there, where a callback that blocks stops every finalizer of the process.
/// </remarks>
internal static class AfterNextCollection
{
    /// <summary>Queues <paramref name="work"/> to the thread pool once the next collection has run; it must not throw.</summary>
    public static void Run(Action work) => _ = new Trigger(work);

    /// <summary>Unreachable as soon as it is made, so the next collection finalizes it.</summary>
    private sealed class Trigger(Action work)
    {
        ~Trigger() => ThreadPool.UnsafeQueueUserWorkItem(static work => work(), work, preferLocal: false);
    }
}
