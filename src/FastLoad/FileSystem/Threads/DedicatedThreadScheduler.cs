using System.Collections.Concurrent;

namespace FastLoad.FileSystem;

/// <summary>
/// Runs tasks on threads of its own, started as work arrives, up to a maximum. Blocking reads (every .NET file read
/// on Linux is a blocking pread) then reach the queue depth the device wants at once, instead of waiting for the
/// shared thread pool to inject threads at about two a second. Threads exit when the scheduler is disposed.
/// </summary>
/// <remarks>
/// A queue and a semaphore with a count per queued task, and one more per thread at the end: a thread that wakes to an
/// empty queue exits. A <c>BlockingCollection</c> ended its threads' waits by canceling them, an
/// <see cref="OperationCanceledException"/> each, and the first exceptions of a new process cost it more than a
/// millisecond of CPU beside the application's next steps. The semaphore spins before it blocks, so a thread that has
/// just finished a task takes the next one without being woken.
/// </remarks>
internal sealed class DedicatedThreadScheduler : TaskScheduler, IDisposable
{
    // Reads need little stack; a small one keeps hundreds of threads cheap.
    private const int StackSize = 256 * 1024;

    [ThreadStatic]
    private static DedicatedThreadScheduler? t_current;

    private readonly ConcurrentQueue<Task> _queue = new();
    private readonly SemaphoreSlim _available = new(0);
    private readonly Lock _lock = new();
    private readonly string _name;
    private int _maxThreads;
    private int _started;
    private int _idle;
    private int _running;

    // Set under the lock, so that a task queued at the same time either goes in before the threads' last
    // counts, and runs, or sees it and goes to the pool.
    private bool _disposed;

    public DedicatedThreadScheduler(int maxThreads, string name)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(maxThreads, 1);
        _maxThreads = maxThreads;
        _name = name;
    }

    public override int MaximumConcurrencyLevel => Volatile.Read(ref _maxThreads);

    /// <summary>The threads that have not exited yet (for tests).</summary>
    internal int RunningThreads => Volatile.Read(ref _running);

    /// <summary>
    /// Raises the number of threads the scheduler may start (never lowers it: the caller's gate bounds the concurrency).
    /// Following the live limit rather than the ceiling keeps the thread count at what the load actually uses.
    /// </summary>
    public void AllowThreads(int maxThreads)
    {
        if (InterlockedMax.TryRaise(ref _maxThreads, maxThreads))
        {
            StartThreadIfNeeded();
        }
    }

    /// <summary>Lets the threads finish what is queued and exit.</summary>
    public void Dispose()
    {
        int threads;
        lock (_lock)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            threads = Volatile.Read(ref _started);
        }

        if (threads > 0)
        {
            _available.Release(threads);
        }
    }

    protected override void QueueTask(Task task)
    {
        lock (_lock)
        {
            if (!_disposed)
            {
                _queue.Enqueue(task);
                _available.Release();
            }
            else
            {
                // Disposed: a late continuation still runs, on the pool.
                ThreadPool.UnsafeQueueUserWorkItem(
                    static state => ((DedicatedThreadScheduler)state!.Item1).TryExecuteTask(state.Item2), (this, task), preferLocal: false);
                return;
            }
        }

        StartThreadIfNeeded();
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

    protected override IEnumerable<Task> GetScheduledTasks() => _queue.ToArray();

    private void TryStartThread()
    {
        lock (_lock)
        {
            // Under the lock: Dispose counts the threads started, one final count each.
            if (_disposed || _started >= Volatile.Read(ref _maxThreads))
            {
                return;
            }

            var thread = new Thread(RunWorker, StackSize) { IsBackground = true, Name = $"{_name} #{_started}" };
            Volatile.Write(ref _started, _started + 1);
            Interlocked.Increment(ref _running);
            thread.UnsafeStart();
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
                _available.Wait();
                Interlocked.Decrement(ref _idle);
                if (!_queue.TryDequeue(out Task? task))
                {
                    return; // A final count: disposed and drained.
                }

                StartThreadIfNeeded();
                TryExecuteTask(task);
            }
        }
        finally
        {
            t_current = null;
            Interlocked.Decrement(ref _running);
        }
    }
}
