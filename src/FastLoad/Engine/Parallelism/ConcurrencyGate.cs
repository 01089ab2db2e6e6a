namespace FastLoad.Engine;

/// <summary>
/// Admits at most <see cref="Limit"/> reads at once, with a limit that can change while a load runs. Dataflow
/// copies a block's options when it is built, so the block's MaxDegreeOfParallelism is only the ceiling; this is the
/// live limit in front of it.
/// </summary>
internal sealed class ConcurrencyGate
{
    private readonly object _sync = new();
    private readonly Queue<TaskCompletionSource> _waiters = new();
    private int _limit;
    private int _inFlight;

    public ConcurrencyGate(int limit) => _limit = limit;

    public int Limit
    {
        get { lock (_sync) return _limit; }
    }

    public ValueTask WaitAsync(CancellationToken cancellationToken)
    {
        TaskCompletionSource waiter;
        lock (_sync)
        {
            if (_inFlight < _limit && _waiters.Count == 0)
            {
                _inFlight++;
                return default;
            }

            waiter = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Enqueue(waiter);
        }

        return new ValueTask(WaitSlowAsync(waiter, cancellationToken));
    }

    public void Release()
    {
        lock (_sync)
        {
            _inFlight--;
            AdmitWaiters();
        }
    }

    /// <summary>Sets the limit and admits waiters it now allows.</summary>
    /// <returns>The previous limit.</returns>
    public int SetLimit(int limit)
    {
        lock (_sync)
        {
            int previous = _limit;
            _limit = limit;
            AdmitWaiters();
            return previous;
        }
    }

    private async Task WaitSlowAsync(TaskCompletionSource waiter, CancellationToken cancellationToken)
    {
        try
        {
            await waiter.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            lock (_sync)
            {
                // Admitted at the same moment it was canceled: give the slot back.
                if (!waiter.TrySetCanceled())
                {
                    _inFlight--;
                    AdmitWaiters();
                }
            }

            throw;
        }
    }

    private void AdmitWaiters()
    {
        while (_inFlight < _limit && _waiters.TryDequeue(out TaskCompletionSource? waiter))
        {
            if (waiter.TrySetResult())
            {
                _inFlight++;
            }
        }
    }
}
