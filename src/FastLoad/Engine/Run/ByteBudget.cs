using System.Diagnostics;

namespace FastLoad.Engine;

/// <summary>
/// Bounds the bytes a load holds at once. Readers ask for a file's charge once they know its size and wait, first
/// come first served, until it fits; bytes are released by anyone. A request larger than the whole budget is
/// granted only when nothing else is held, so it loads alone. The file the consumer is waiting for (input order)
/// is never kept waiting: holding it back behind files that cannot be handed over before it would deadlock.
/// </summary>
internal sealed class ByteBudget
{
    private readonly object _gate = new();
    private long _inUse;
    private long _peak;
    private int _due = -1;
    private bool _stopped;

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

    /// <summary>
    /// Takes <paramref name="bytes"/> for the file at <paramref name="index"/>, blocking until they fit.
    /// </summary>
    /// <exception cref="OperationCanceledException"><see cref="Stop"/> was called while waiting.</exception>
    public void Acquire(long bytes, int index, CancellationToken cancellationToken)
    {
        lock (_gate)
        {
            if ((_first is null && Fits(bytes)) || index == _due)
            {
                Take(bytes);
                return;
            }

            var waiter = new Waiter();
            Enqueue(waiter);
            try
            {
                while (true)
                {
                    if (_stopped)
                    {
                        cancellationToken.ThrowIfCancellationRequested();
                        throw new OperationCanceledException(cancellationToken);
                    }

                    if ((waiter == _first && Fits(bytes)) || index == _due)
                    {
                        Take(bytes);
                        return;
                    }

                    Monitor.Wait(_gate);
                }
            }
            finally
            {
                Remove(waiter);

                // The next in line may fit now that this one is served or gone.
                Monitor.PulseAll(_gate);
            }
        }
    }

    /// <summary>Takes <paramref name="bytes"/> if they fit now, ahead of no waiter; never waits.</summary>
    public bool TryAcquire(long bytes, int index)
    {
        lock (_gate)
        {
            if ((_first is null && Fits(bytes)) || index == _due)
            {
                Take(bytes);
                return true;
            }

            return false;
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

        lock (_gate)
        {
            _inUse -= bytes;
            Debug.Assert(_inUse >= 0, "Released more bytes than were acquired.");
            if (_first is not null)
            {
                Monitor.PulseAll(_gate);
            }
        }
    }

    /// <summary>Marks the file at <paramref name="index"/> as the one delivery waits for (-1: none).</summary>
    public void SetDue(int index)
    {
        lock (_gate)
        {
            _due = index;
            if (_first is not null)
            {
                Monitor.PulseAll(_gate);
            }
        }
    }

    /// <summary>Wakes every waiter with an <see cref="OperationCanceledException"/>; later waits throw at once.</summary>
    public void Stop()
    {
        lock (_gate)
        {
            _stopped = true;
            Monitor.PulseAll(_gate);
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
    }

    private sealed class Waiter
    {
        public Waiter? Previous;
        public Waiter? Next;
    }
}
