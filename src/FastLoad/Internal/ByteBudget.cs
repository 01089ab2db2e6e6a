using System.Diagnostics;

namespace FastLoad.Internal;

/// <summary>
/// Bounds the bytes the loader holds at once. Acquired in input order by one feeder, released by anyone.
/// A request larger than the whole budget is granted only when nothing else is held, so it loads alone.
/// </summary>
internal sealed class ByteBudget
{
    private readonly object _gate = new();
    private long _inUse;
    private long _peak;
    private TaskCompletionSource? _released;

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

    public ValueTask AcquireAsync(long bytes, CancellationToken cancellationToken)
    {
        lock (_gate)
        {
            if (TryTake(bytes))
            {
                return default;
            }
        }

        return AcquireSlowAsync(bytes, cancellationToken);
    }

    /// <summary>Charges bytes without waiting: for a file that grew after it was planned (waiting could deadlock ordered delivery).</summary>
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

        TaskCompletionSource? released;
        lock (_gate)
        {
            _inUse -= bytes;
            Debug.Assert(_inUse >= 0, "Released more bytes than were acquired.");
            released = _released;
            _released = null;
        }

        released?.TrySetResult();
    }

    private async ValueTask AcquireSlowAsync(long bytes, CancellationToken cancellationToken)
    {
        while (true)
        {
            Task released;
            lock (_gate)
            {
                if (TryTake(bytes))
                {
                    return;
                }

                _released ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                released = _released.Task;
            }

            await released.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    private bool TryTake(long bytes)
    {
        if (_inUse != 0 && _inUse + bytes > Capacity)
        {
            return false;
        }

        Take(bytes);
        return true;
    }

    private void Take(long bytes)
    {
        _inUse += bytes;
        if (_inUse > _peak)
        {
            _peak = _inUse;
        }
    }
}
