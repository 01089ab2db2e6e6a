using FastLoad.FileSystem;

namespace FastLoad.Engine;

/// <summary>
/// Threads that read a load's files one after another, each taking the next file from the load's cursor: open, fstat,
/// read, close, as a native program would. They start reading the moment a load starts, with nothing to prepare
/// first, and stop when the load's pipeline has taken over. Each thread starts the next one, so that starting
/// threads does not hold up the first reads; the first one also describes the storage for the load. On a large set a
/// <see cref="ParallelismController"/> corrects their number from measured throughput: threads beyond its limit wait
/// until it is raised again, and new ones start when it passes the threads started so far. The threads come from
/// <see cref="ReaderThreadPool.Shared"/>: a load that follows another within seconds starts on the earlier one's.
/// </summary>
internal sealed class DirectReaders
{
    /// <summary>
    /// Sets with more files than this get a controller (they run long enough for its trials), or, where they span
    /// several devices, the pipeline's lane per device.
    /// </summary>
    internal const int AdaptiveThreshold = 1024;

    // How often a thread above the limit looks again whether the load has ended (it is woken at once otherwise).
    private static readonly TimeSpan ParkTimeout = TimeSpan.FromMilliseconds(50);

    private readonly LoadContext _context;
    private readonly DeliveryChannel.DeliveryWriter _delivery;
    private readonly LoadReaders _readers;
    private readonly object _park = new();
    private ParallelismController? _controller;
    private int _limit;
    private readonly int _threadsWhileCached;
    private int _started;
    private int _running;
    // 1 while this load's threads count in the parallelism instrument; lowered once, by the load's release or the last
    // thread out, whichever comes first (the thread describing the storage may outlive the load).
    private int _parallelismCounted;
    private volatile bool _budgetChecked;

    public DirectReaders(LoadContext context, DeliveryChannel.DeliveryWriter delivery, LoadReaders readers, int threads, int threadsWhileCached)
    {
        _context = context;
        _delivery = delivery;
        _readers = readers;
        _limit = threads;
        _threadsWhileCached = threadsWhileCached;
        if (threadsWhileCached < threads)
        {
            // The first read that waits for the device starts the threads held back.
            context.DeviceWait = new DeviceWaitSignal(StartHeldBack);
        }
    }

    /// <summary>The number of threads the load reads on.</summary>
    public int Threads => Volatile.Read(ref _limit);

    /// <summary>The number of threads the load settled on; the controller's choice where it has one.</summary>
    public int SettledThreads => Volatile.Read(ref _controller)?.Settled ?? Threads;

    /// <summary>The number of threads the load started reading with, once the storage was described.</summary>
    public int InitialThreads => Volatile.Read(ref _controller)?.History[0] ?? Threads;

    /// <summary>The settled numbers of threads in the order they were taken.</summary>
    public IReadOnlyList<int> History => Volatile.Read(ref _controller)?.History ?? [Threads];

    /// <summary>Lets <paramref name="controller"/> correct the number of threads from now on (its initial limit is <see cref="Threads"/>).</summary>
    public void Adapt(ParallelismController controller) => Volatile.Write(ref _controller, controller);

    /// <summary>Wakes threads waiting above the limit, so that they see the load end or stop.</summary>
    public void WakeParked()
    {
        lock (_park)
        {
            Monitor.PulseAll(_park);
        }
    }

    public void Start()
    {
        _parallelismCounted = _context.Instruments.ParallelismChanged(Threads) ? 1 : 0;
        StartNext();
    }

    /// <summary>Lowers the number of threads; those beyond it stop after their current file.</summary>
    public void Limit(int threads)
    {
        int previous = Interlocked.Exchange(ref _limit, Math.Min(threads, Volatile.Read(ref _limit)));
        if (Volatile.Read(ref _parallelismCounted) == 1 && previous != Threads)
        {
            _context.Instruments.ParallelismChanged(Threads - previous);
        }
    }

    /// <summary>
    /// Counts a file read by a reader thread or by the caller, whose reads are the load's too: once the files' sizes
    /// are known, no more threads than the budget keeps busy (the caller may read the first files before any thread
    /// has started), and the controller measures every read.
    /// </summary>
    /// <param name="bytes">The bytes read; 0 when the file failed.</param>
    public void FileRead(long bytes)
    {
        if (!_budgetChecked && bytes > 0)
        {
            _budgetChecked = true;
            Limit(_readers.ThreadsTheBudgetFeeds());
        }

        if (_controller?.OnCompleted(bytes, 1) is int limit)
        {
            ChangeLimit(limit);
        }
    }

    /// <summary>Starts the threads held back until a read waited; one that cannot be started stops the load visibly, not the read that waited.</summary>
    private void StartHeldBack()
    {
        try
        {
            _context.Hooks.OnDeviceWaitSeen?.Invoke();
            StartNext();
        }
        catch (Exception ex)
        {
            _delivery.Fail(ex);
        }
    }

    private void StartNext()
    {
        // No thread for a set that the started ones (and the caller) have already taken.
        if (_context.Files.Left == 0)
        {
            return;
        }

        // Claimed only below the limit, so that a limit raised later starts the ordinals that never ran; beyond one a
        // core only once a read waited for the device (the signal starts the next then).
        int ordinal;
        do
        {
            ordinal = Volatile.Read(ref _started);
            if (ordinal >= Threads || (ordinal >= _threadsWhileCached && _context.DeviceWait is { Seen: false }))
            {
                return;
            }
        }
        while (Interlocked.CompareExchange(ref _started, ordinal + 1, ordinal) != ordinal);

        // Counted before the thread runs, so that the count only reaches 0 when the last thread is done.
        if (!_context.Lifetime.ReaderStarted())
        {
            return;
        }

        Interlocked.Increment(ref _running);
        try
        {
            ReaderThreadPool.Shared.Run(static state => ((ReaderThread)state!).Run(), new ReaderThread(this, ordinal));
        }
        catch
        {
            _ = Exited(countedInLoad: true);
            throw;
        }
    }

    private void Run(int ordinal)
    {
        bool countedInLoad = true;
        try
        {
            _context.Hooks.OnReaderThreadStart?.Invoke();
            StartNext();
            if (ordinal == 0)
            {
                // The first thread describes the storage; it does not count as running meanwhile, so that a load that
                // ends does not wait for the description.
                _context.Lifetime.ReaderExited();
                countedInLoad = false;
                StorageDevice device = _readers.DescribeDevice(_context.Files.PathAt(0));
                if (!_context.Lifetime.ReaderStarted())
                {
                    return;
                }

                countedInLoad = true;
                _readers.SettleStorage(device);
            }

            while (!_readers.Retired)
            {
                if (ordinal >= Threads && !Park(ordinal))
                {
                    break;
                }

                if (!_delivery.TryClaim(wait: true, out int index))
                {
                    WakeParked();
                    break;
                }

                FileRead(BlockingReads.ReadAndPublish(_context, _delivery, index));
            }
        }
        catch (Exception ex)
        {
            // ReadAndPublish never throws; this is a thread that could not be started, or a bug: stop the load visibly.
            _delivery.Fail(ex);
        }
        finally
        {
            if (Exited(countedInLoad))
            {
                // The load no longer waits for this thread: it prepares the metrics for the next loads (see LoadInstruments).
                _context.Instruments.CreateOnThisThread();
            }
        }
    }

    /// <summary>
    /// Waits while <paramref name="ordinal"/> is above the limit; <see langword="false"/> when the thread should leave:
    /// no controller can raise the limit again, or the load has no files left or stopped.
    /// </summary>
    private bool Park(int ordinal)
    {
        lock (_park)
        {
            while (ordinal >= Threads)
            {
                if (_controller is null || _context.Files.Left == 0 || _readers.Retired)
                {
                    return false;
                }

                Monitor.Wait(_park, ParkTimeout);
            }
        }

        return true;
    }

    /// <summary>Takes the controller's new limit: above it threads wait; below it parked threads resume and new ones start.</summary>
    private void ChangeLimit(int limit)
    {
        int previous = Interlocked.Exchange(ref _limit, limit);
        if (Volatile.Read(ref _parallelismCounted) == 1)
        {
            _context.Instruments.ParallelismChanged(limit - previous);
        }

        if (limit > previous)
        {
            WakeParked();
            StartNext();
        }
    }

    /// <summary>Takes this load's threads out of the parallelism instrument, once.</summary>
    public void StopCountingParallelism()
    {
        if (Interlocked.Exchange(ref _parallelismCounted, 0) == 1)
        {
            _context.Instruments.ParallelismChanged(-Threads);
        }
    }

    /// <summary>Counts a thread out (of the load too where it counts there); returns whether it was the last.</summary>
    private bool Exited(bool countedInLoad)
    {
        bool last = Interlocked.Decrement(ref _running) == 0;
        if (last)
        {
            StopCountingParallelism();
        }

        if (countedInLoad)
        {
            _context.Lifetime.ReaderExited();
        }

        return last;
    }

    private sealed class ReaderThread(DirectReaders readers, int ordinal)
    {
        public void Run() => readers.Run(ordinal);
    }
}
