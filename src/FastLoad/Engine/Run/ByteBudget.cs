using System.Diagnostics;

namespace FastLoad.Engine;

/// <summary>
/// Bounds the bytes a load holds at once. Readers ask for a file's charge once they know its size and wait, first
/// come first served, until it fits; bytes are released by anyone. A request larger than the whole budget is
/// granted only when nothing else is held, so it loads alone. The file the consumer is waiting for (input order)
/// is never kept waiting: holding it back behind files that cannot be handed over before it would deadlock.
/// </summary>
/// <remarks>
/// Bytes are handed to waiters by whoever frees them, and only the waiters granted bytes are woken, each on its own
/// monitor (as <see cref="SemaphoreSlim"/> hands a count to one waiter): with many reader threads waiting under a
/// tight budget, a release wakes the one or two it lets through, not all of them to find that one may go.
/// </remarks>
internal sealed class ByteBudget
{
    private readonly object _gate = new();
    private long _inUse;
    private long _peak;
    private int _due = -1;
    private bool _stopped;
    private long _wakeUps;

    // Waiters in arrival order; only the first may take bytes, so a large request is not starved by smaller ones.
    private Waiter? _first;
    private Waiter? _last;

    public ByteBudget(long capacity)
    {
        Debug.Assert(capacity > 0);
        Capacity = capacity;
    }

    public long Capacity { get; }

    public long Peak
    {
        get { lock (_gate) return _peak; }
    }

    /// <summary>How many times a waiting thread woke up (tests bound it per release).</summary>
    internal long WakeUps => Interlocked.Read(ref _wakeUps);

    /// <summary>The threads waiting for bytes now.</summary>
    internal int Waiting
    {
        get
        {
            lock (_gate)
            {
                int count = 0;
                for (Waiter? waiter = _first; waiter is not null; waiter = waiter.Next)
                {
                    count++;
                }

                return count;
            }
        }
    }

    /// <summary>Takes <paramref name="bytes"/> for the file at <paramref name="index"/>, blocking until they fit.</summary>
    /// <exception cref="OperationCanceledException"><see cref="Stop"/> was called while waiting.</exception>
    public void Acquire(long bytes, int index, CancellationToken cancellationToken)
    {
        if (TakeOrQueue(bytes, index, asynchronous: false, cancellationToken) is not { } waiter)
        {
            return;
        }

        lock (waiter)
        {
            // Granted or stopped under the gate before the waiter's monitor is pulsed: no wake-up is lost.
            while (!waiter.Granted && !waiter.Stopped)
            {
                Monitor.Wait(waiter);
                Interlocked.Increment(ref _wakeUps);
            }
        }

        if (!waiter.Granted)
        {
            throw Stopped(cancellationToken);
        }
    }

    /// <summary>
    /// Takes <paramref name="bytes"/> for the file at <paramref name="index"/> as <see cref="Acquire"/> does, waiting
    /// without a thread: for reads on the shared thread pool, whose threads the consumer may need to free the bytes.
    /// </summary>
    /// <exception cref="OperationCanceledException"><see cref="Stop"/> was called before or while waiting.</exception>
    public Task AcquireAsync(long bytes, int index, CancellationToken cancellationToken) =>
        TakeOrQueue(bytes, index, asynchronous: true, cancellationToken) is { } waiter ? WaitAsync(waiter, cancellationToken) : Task.CompletedTask;

    /// <summary>Takes <paramref name="bytes"/> if they fit now, ahead of no waiter; never waits.</summary>
    public bool TryAcquire(long bytes, int index)
    {
        lock (_gate)
        {
            return TryTakeLocked(bytes, index);
        }
    }

    /// <summary>Charges bytes without waiting: for a file that grew after its size was taken (its bytes are already read).</summary>
    public void ForceAcquire(long bytes)
    {
        lock (_gate)
        {
            Take(bytes);
        }
    }

    public void Release(long bytes)
    {
        if (bytes == 0)
        {
            return;
        }

        Waiter? granted;
        lock (_gate)
        {
            _inUse -= bytes;
            Debug.Assert(_inUse >= 0, "Released more bytes than were acquired.");
            granted = GrantLocked();
        }

        Wake(granted);
    }

    /// <summary>Marks the file at <paramref name="index"/> as the one delivery waits for (-1: none); it never waits for bytes.</summary>
    public void SetDue(int index)
    {
        Waiter? granted = null;
        lock (_gate)
        {
            _due = index;
            for (Waiter? waiter = _first; waiter is not null; waiter = waiter.Next)
            {
                if (waiter.Index == index)
                {
                    granted = Grant(waiter);
                    break;
                }
            }

            // The line may move on behind a due file that was first in it.
            if (granted is not null)
            {
                granted.NextGranted = GrantLocked();
            }
        }

        Wake(granted);
    }

    /// <summary>Wakes every waiter with an <see cref="OperationCanceledException"/>; later waits throw at once.</summary>
    public void Stop()
    {
        Waiter? waiters;
        lock (_gate)
        {
            _stopped = true;
            waiters = _first;
            _first = _last = null;
        }

        while (waiters is not null)
        {
            Waiter? next = waiters.Next;
            waiters.Stopped = true;
            Pulse(waiters);
            waiters = next;
        }
    }

    /// <summary>Takes the bytes if they may go now; otherwise puts a waiter for them in line and returns it.</summary>
    /// <exception cref="OperationCanceledException">The budget was stopped.</exception>
    private Waiter? TakeOrQueue(long bytes, int index, bool asynchronous, CancellationToken cancellationToken)
    {
        lock (_gate)
        {
            if (TryTakeLocked(bytes, index))
            {
                return null;
            }

            if (_stopped)
            {
                throw Stopped(cancellationToken);
            }

            var waiter = new Waiter(bytes, index)
            {
                Signal = asynchronous ? new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously) : null,
            };
            Enqueue(waiter);
            return waiter;
        }
    }

    /// <summary>Takes the bytes when nobody waits ahead and they fit, or when they are the due file's.</summary>
    private bool TryTakeLocked(long bytes, int index)
    {
        if ((_first is null && Fits(bytes)) || index == _due)
        {
            Take(bytes);
            return true;
        }

        return false;
    }

    private async Task WaitAsync(Waiter waiter, CancellationToken cancellationToken)
    {
        await waiter.Signal!.Task.ConfigureAwait(false);
        Interlocked.Increment(ref _wakeUps);
        if (!waiter.Granted)
        {
            throw Stopped(cancellationToken);
        }
    }

    private static OperationCanceledException Stopped(CancellationToken cancellationToken) =>
        cancellationToken.IsCancellationRequested ? new OperationCanceledException(cancellationToken) : new OperationCanceledException();

    /// <summary>Gives bytes to the waiters at the head of the line while they fit; returns them, chained, to be woken.</summary>
    private Waiter? GrantLocked()
    {
        Waiter? head = null;
        Waiter? tail = null;
        while (_first is { } waiter && Fits(waiter.Bytes))
        {
            Grant(waiter);
            if (tail is null)
            {
                head = waiter;
            }
            else
            {
                tail.NextGranted = waiter;
            }

            tail = waiter;
        }

        return head;
    }

    /// <summary>Takes the waiter's bytes for it and takes it out of the line; it is woken outside the gate.</summary>
    private Waiter Grant(Waiter waiter)
    {
        Remove(waiter);
        Take(waiter.Bytes);
        waiter.Granted = true;
        return waiter;
    }

    /// <summary>Wakes the granted waiters, outside the gate.</summary>
    private static void Wake(Waiter? granted)
    {
        while (granted is not null)
        {
            Waiter? next = granted.NextGranted;
            Pulse(granted);
            granted = next;
        }
    }

    private static void Pulse(Waiter waiter)
    {
        if (waiter.Signal is { } signal)
        {
            signal.TrySetResult();
            return;
        }

        lock (waiter)
        {
            Monitor.Pulse(waiter);
        }
    }

    private bool Fits(long bytes) => _inUse == 0 || _inUse + bytes <= Capacity;

    private void Take(long bytes)
    {
        _inUse += bytes;
        if (_inUse > _peak)
        {
            _peak = _inUse;
        }
    }

    private void Enqueue(Waiter waiter)
    {
        waiter.Previous = _last;
        if (_last is null)
        {
            _first = waiter;
        }
        else
        {
            _last.Next = waiter;
        }

        _last = waiter;
    }

    private void Remove(Waiter waiter)
    {
        if (waiter.Previous is null)
        {
            _first = waiter.Next;
        }
        else
        {
            waiter.Previous.Next = waiter.Next;
        }

        if (waiter.Next is null)
        {
            _last = waiter.Previous;
        }
        else
        {
            waiter.Next.Previous = waiter.Previous;
        }

        waiter.Previous = waiter.Next = null;
    }

    /// <summary>A thread waiting for bytes, asleep on its own monitor; or an asynchronous wait, on its signal.</summary>
    private sealed class Waiter(long bytes, int index)
    {
        public readonly long Bytes = bytes;
        public readonly int Index = index;
        public Waiter? Previous;
        public Waiter? Next;
        public Waiter? NextGranted;
        public TaskCompletionSource? Signal;

        // Written under the budget's gate, read under the waiter's own monitor after the pulse.
        public volatile bool Granted;
        public volatile bool Stopped;
    }
}
