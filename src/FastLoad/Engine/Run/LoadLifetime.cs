namespace FastLoad.Engine;

/// <summary>
/// What a load's readers see of its lifetime: the token that stops them, and the count of reader threads that the
/// load's disposal waits for. Once the load is closed, no reader starts.
/// </summary>
internal sealed class LoadLifetime
{
    private readonly CancellationTokenSource _stop;
    private readonly CancellationToken _cancellationToken;
    private readonly CancellationToken _enumeratorCancellationToken;
    private readonly object _sync = new();
    private int _activeReaders;
    private bool _closed;
    private TaskCompletionSource? _readersExited;

    /// <summary>Both tokens stop the load (the second is an enumeration's own).</summary>
    public LoadLifetime(CancellationToken cancellationToken, CancellationToken enumeratorCancellationToken)
    {
        if (!cancellationToken.CanBeCanceled || cancellationToken == enumeratorCancellationToken)
        {
            cancellationToken = enumeratorCancellationToken;
            enumeratorCancellationToken = default;
        }

        _stop = (cancellationToken.CanBeCanceled, enumeratorCancellationToken.CanBeCanceled) switch
        {
            (true, true) => CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, enumeratorCancellationToken),
            (true, false) => CancellationTokenSource.CreateLinkedTokenSource(cancellationToken),
            _ => new CancellationTokenSource(),
        };

        // Kept: a disposed source throws from Token, and a thread the load does not wait for may still look at it.
        StopToken = _stop.Token;
        _cancellationToken = cancellationToken;
        _enumeratorCancellationToken = enumeratorCancellationToken;
    }

    /// <summary>Canceled when the load stops: by its caller, its consumer, its disposal or a failure.</summary>
    public CancellationToken StopToken { get; }

    /// <summary>The caller's token, the one the set's enumeration observes.</summary>
    public CancellationToken CallerToken => _cancellationToken;

    public bool IsStopped => _stop.IsCancellationRequested;

    /// <summary>Stops the load.</summary>
    public void Stop() => _stop.Cancel();

    /// <summary>Throws the cancellation of whichever token stopped the load.</summary>
    public void ThrowIfStopped()
    {
        _cancellationToken.ThrowIfCancellationRequested();
        _enumeratorCancellationToken.ThrowIfCancellationRequested();
        if (_stop.IsCancellationRequested)
        {
            throw new OperationCanceledException(StopToken);
        }
    }

    /// <summary>Counts a reader thread as running; the load's disposal waits for each to call <see cref="ReaderExited"/>.</summary>
    /// <returns><see langword="false"/>, counting nothing, when the load was disposed: the reader must not start.</returns>
    public bool ReaderStarted()
    {
        lock (_sync)
        {
            if (_closed)
            {
                return false;
            }

            _activeReaders++;
            return true;
        }
    }

    public void ReaderExited()
    {
        TaskCompletionSource? exited = null;
        lock (_sync)
        {
            if (--_activeReaders == 0)
            {
                exited = _readersExited;
                Monitor.PulseAll(_sync);
            }
        }

        exited?.TrySetResult();
    }

    /// <summary>Starts no reader from now on; <see langword="false"/> when the load was closed before.</summary>
    public bool Close()
    {
        lock (_sync)
        {
            if (_closed)
            {
                return false;
            }

            _closed = true;
            return true;
        }
    }

    /// <summary>Whether a reader thread still runs.</summary>
    /// <param name="waitUntilIdle">
    /// Whether to wait for the readers first, without going asynchronous: once every file is handed over, they only
    /// have their loop to leave.
    /// </param>
    public bool ReadersRunning(bool waitUntilIdle)
    {
        lock (_sync)
        {
            while (waitUntilIdle && _activeReaders > 0)
            {
                Monitor.Wait(_sync);
            }

            return _activeReaders > 0;
        }
    }

    /// <summary>Completes once no reader thread runs.</summary>
    public Task ReadersExited()
    {
        lock (_sync)
        {
            return _activeReaders == 0
                ? Task.CompletedTask
                : (_readersExited ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;
        }
    }

    /// <summary>Releases the stop's resources, once no reader runs.</summary>
    public void Dispose() => _stop.Dispose();
}
