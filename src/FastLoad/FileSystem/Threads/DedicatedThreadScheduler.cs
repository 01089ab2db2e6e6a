using System.Collections.Concurrent;

namespace FastLoad.FileSystem;

/// <summary>
/// Runs tasks on threads of its own, started as work arrives, up to a maximum. Blocking reads (every .NET file read
/// on Linux is a blocking pread) then reach the queue depth the device wants at once, instead of waiting for the
/// shared thread pool to inject threads at about two a second. Threads exit when the scheduler is disposed.
/// </summary>
internal sealed class DedicatedThreadScheduler : TaskScheduler, IDisposable
{
    // Reads need little stack; a small one keeps hundreds of threads cheap.
    private const int StackSize = 256 * 1024;

    [ThreadStatic]
    private static DedicatedThreadScheduler? t_current;

    private readonly BlockingCollection<Task> _queue = new();
    private int _maxThreads;
    private readonly string _name;
    private int _started;
    private int _idle;

    // The owner's reference plus one per worker: the last to let go disposes the queue, once nothing can wait on it.
    private int _references = 1;
    private int _disposed;

    public DedicatedThreadScheduler(int maxThreads, string name)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(maxThreads, 1);
        _maxThreads = maxThreads;
        _name = name;
    }

    public override int MaximumConcurrencyLevel => Volatile.Read(ref _maxThreads);

    /// <summary>
    /// Raises the number of threads the scheduler may start (never lowers it: the caller's gate bounds the concurrency).
    /// Following the live limit rather than the ceiling keeps the thread count at what the load actually uses.
    /// </summary>
    public void AllowThreads(int maxThreads)
    {
        if (InterlockedMax.TryRaise(ref _maxThreads, maxThreads) && TryAddReference())
        {
            try
            {
                StartThreadIfNeeded();
            }
            finally
            {
                Release();
            }
        }
    }

    /// <summary>Lets the threads finish what is queued and exit; the last one out disposes the queue.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        _queue.CompleteAdding();
        Release();
    }

    protected override void QueueTask(Task task)
    {
        // The reference keeps the queue from being disposed under this call by the last worker leaving.
        if (TryAddReference())
        {
            try
            {
                if (_queue.TryAdd(task))
                {
                    StartThreadIfNeeded();
                    return;
                }
            }
            catch (InvalidOperationException)
            {
                // Adding was completed by Dispose.
            }
            finally
            {
                Release();
            }
        }

        // Disposed: a late continuation still runs, on the pool.
        ThreadPool.UnsafeQueueUserWorkItem(
            static state => ((DedicatedThreadScheduler)state!.Item1).TryExecuteTask(state.Item2), (this, task), preferLocal: false);
    }

    // Called by whoever queues a task and by each worker that has just taken one (after it stopped counting as idle):
    // between the two, one always sees both the task and the true idle count, so no task waits behind a busy thread.
    private void StartThreadIfNeeded()
    {
        if (_queue.Count > Volatile.Read(ref _idle))
        {
            TryStartThread();
        }
    }

    // Only ever inline on our own threads: inlining on a caller's thread would move a blocking read there.
    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) =>
        !taskWasPreviouslyQueued && t_current == this && TryExecuteTask(task);

    protected override IEnumerable<Task> GetScheduledTasks() => Volatile.Read(ref _references) > 0 ? _queue.ToArray() : [];

    private void TryStartThread()
    {
        int started = Volatile.Read(ref _started);
        while (started < Volatile.Read(ref _maxThreads))
        {
            int seen = Interlocked.CompareExchange(ref _started, started + 1, started);
            if (seen == started)
            {
                if (!TryAddReference())
                {
                    return; // Disposed and the queue with it.
                }

                var thread = new Thread(RunWorker, StackSize) { IsBackground = true, Name = $"{_name} #{started}" };
                thread.UnsafeStart();
                return;
            }

            started = seen;
        }
    }

    private void RunWorker()
    {
        t_current = this;
        try
        {
            while (true)
            {
                Interlocked.Increment(ref _idle);
                bool taken = _queue.TryTake(out Task? task, Timeout.Infinite);
                Interlocked.Decrement(ref _idle);
                if (!taken)
                {
                    return; // Disposed and drained.
                }

                StartThreadIfNeeded();
                TryExecuteTask(task!);
            }
        }
        finally
        {
            t_current = null;
            Release();
        }
    }

    private bool TryAddReference()
    {
        int references = Volatile.Read(ref _references);
        while (references > 0)
        {
            int seen = Interlocked.CompareExchange(ref _references, references + 1, references);
            if (seen == references)
            {
                return true;
            }

            references = seen;
        }

        return false;
    }

    private void Release()
    {
        if (Interlocked.Decrement(ref _references) == 0)
        {
            _queue.Dispose();
        }
    }
}
