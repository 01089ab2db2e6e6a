using System.Collections.Concurrent;

namespace FastLoad.Internal;

/// <summary>
/// Runs tasks on a fixed set of threads of its own. Blocking reads (every .NET file read on Linux is a blocking
/// pread) then reach the queue depth the device wants at once, instead of waiting for the shared thread pool to
/// inject threads at about two a second.
/// </summary>
internal sealed class DedicatedThreadScheduler : TaskScheduler, IDisposable
{
    // Reads need little stack; a small one keeps 64+ threads cheap.
    private const int StackSize = 256 * 1024;

    private readonly BlockingCollection<Task> _queue = new();
    private readonly int _threadCount;

    public DedicatedThreadScheduler(int threadCount, string name)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(threadCount, 1);
        _threadCount = threadCount;
        for (int i = 0; i < threadCount; i++)
        {
            var thread = new Thread(RunWorker, StackSize) { IsBackground = true, Name = $"{name} #{i}" };
            thread.UnsafeStart();
        }
    }

    public override int MaximumConcurrencyLevel => _threadCount;

    /// <summary>Lets the threads finish what is queued and exit.</summary>
    public void Dispose() => _queue.CompleteAdding();

    protected override void QueueTask(Task task) => _queue.Add(task);

    // Only ever inline on our own threads: inlining on a caller's thread would move a blocking read there.
    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) =>
        !taskWasPreviouslyQueued && t_isWorker && TryExecuteTask(task);

    protected override IEnumerable<Task> GetScheduledTasks() => _queue.ToArray();

    [ThreadStatic]
    private static bool t_isWorker;

    private void RunWorker()
    {
        t_isWorker = true;
        foreach (Task task in _queue.GetConsumingEnumerable())
        {
            TryExecuteTask(task);
        }
    }
}
