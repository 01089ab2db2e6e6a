namespace FastLoad.FileSystem;

/// <summary>
/// Dedicated threads for blocking reads, kept for a while after their work ends so that the next load starts on them
/// rather than on new threads: starting a .NET thread costs more than reading a small file, and an application often
/// loads several sets one after another at start-up. Unlike the shared thread pool, work never waits for a thread to
/// be injected: with no idle thread, a new one starts at once. An idle thread exits after <see cref="IdleTimeout"/>.
/// </summary>
internal sealed class ReaderThreadPool
{
    // Reads need little stack; a small one keeps many threads cheap.
    private const int StackSize = 256 * 1024;

    private readonly object _gate = new();

    // Idle workers, the most recently idle last (its stack and caches are the warmest). Guarded by _gate.
    private readonly List<Worker> _idle = [];
    private readonly string _threadName;

    public ReaderThreadPool(TimeSpan idleTimeout, string threadName)
    {
        IdleTimeout = idleTimeout;
        _threadName = threadName;
    }

    /// <summary>The pool of the process's loads: a thread waits 5 seconds for a next load before it exits.</summary>
    public static ReaderThreadPool Shared { get; } = new(TimeSpan.FromSeconds(5), "FastLoad reader");

    /// <summary>How long a thread whose work ended waits for more before it exits.</summary>
    public TimeSpan IdleTimeout { get; }

    /// <summary>The threads waiting for work now.</summary>
    public int IdleThreads
    {
        get
        {
            lock (_gate)
            {
                return _idle.Count;
            }
        }
    }

    /// <summary>Runs <paramref name="work"/> on an idle thread, or on a new one when none is idle.</summary>
    /// <remarks><paramref name="work"/> must not throw: nothing would observe the exception but the process's end.</remarks>
    /// <exception cref="OutOfMemoryException">A new thread could not be started.</exception>
    public void Run(Action<object?> work, object? state)
    {
        Worker? idle = null;
        lock (_gate)
        {
            if (_idle.Count > 0)
            {
                idle = _idle[^1];
                _idle.RemoveAt(_idle.Count - 1);
                idle.Assign(work, state);
            }
        }

        if (idle is not null)
        {
            idle.Wake();
            return;
        }

        var worker = new Worker(this);
        worker.Assign(work, state);
        new Thread(static worker => ((Worker)worker!).Loop(), StackSize) { IsBackground = true, Name = _threadName }.UnsafeStart(worker);
    }

    private sealed class Worker(ReaderThreadPool pool)
    {
        // Assigned under the pool's gate while the worker is out of the idle list; read by the worker alone.
        private volatile Action<object?>? _work;
        private object? _state;

        public void Assign(Action<object?> work, object? state)
        {
            _state = state;
            _work = work;
        }

        public void Wake()
        {
            lock (this)
            {
                Monitor.Pulse(this);
            }
        }

        public void Loop()
        {
            while (true)
            {
                Action<object?> work = _work!;
                object? state = _state;
                _work = null;
                _state = null;
                work(state);

                lock (pool._gate)
                {
                    pool._idle.Add(this);
                }

                lock (this)
                {
                    // Assign happens before Wake takes this lock, so work assigned before the wait is seen here.
                    if (_work is null)
                    {
                        Monitor.Wait(this, pool.IdleTimeout);
                    }
                }

                if (_work is null)
                {
                    bool leave;
                    lock (pool._gate)
                    {
                        // Work may have been assigned between the timeout and this lock: run it rather than leave.
                        leave = _work is null;
                        if (leave)
                        {
                            pool._idle.Remove(this);
                        }
                    }

                    if (leave)
                    {
                        // Idle for its timeout: the process may have stopped loading, and what loads keep can go back.
                        IdleTrimmer.OnReaderThreadIdle();
                        return;
                    }
                }
            }
        }
    }
}
