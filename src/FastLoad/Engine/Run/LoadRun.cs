using System.Runtime.CompilerServices;
using System.Threading.Tasks.Sources;
using Microsoft.Extensions.Logging;

namespace FastLoad.Engine;

/// <summary>
/// One load, as its consumer sees it, and its lifetime: it starts the readers on the first <see cref="MoveNextAsync"/>,
/// hands over the files its <see cref="DeliveryChannel"/> delivers, and on disposal stops the readers, waits for them
/// and returns what was not handed over. The readers claim files from the load's <see cref="FileCursor"/> and share its
/// <see cref="LoadContext"/>; which readers read is <see cref="LoadReaders"/>'s choice. The consumer's thread drives one
/// of them (<see cref="ConsumerThreadReader"/>) whenever no file is ready, so that a small load starts no thread and a
/// ring's queue stays full while the consumer works. Every file read, success or error, is handed over exactly once or
/// returned when the load is disposed.
/// </summary>
/// <remarks>
/// The start path uses only the runtime's precompiled code (no generic instantiations over this library's value types,
/// no async state machines, no Dataflow), so that the first load of a process spends its time reading, not compiling.
/// </remarks>
internal sealed class LoadRun : IAsyncEnumerator<LoadedFile>, IValueTaskSource<bool>
{
    private readonly LoadContext _context;
    private readonly LoadLifetime _lifetime;
    private readonly DeliveryChannel _channel;
    private readonly DeliveryChannel.DeliveryReader _delivery;
    private readonly long _startTimestamp;
    private CancellationTokenRegistration _stopRegistration;
    private ConsumerThreadReader? _consumerReader;
    private bool _started;
    private bool _finished;
    private bool _disposed;

    /// <summary>Prepares a load; it starts on the first <see cref="MoveNextAsync"/>. Both tokens stop it (the second is an enumeration's own).</summary>
    public LoadRun(FileSet files, LoadEngine engine, CancellationToken cancellationToken, CancellationToken enumeratorCancellationToken = default)
    {
        _lifetime = new LoadLifetime(cancellationToken, enumeratorCancellationToken);
        _context = new LoadContext(engine, new FileCursor(files), _lifetime);
        _channel = new DeliveryChannel(_context);
        _delivery = _channel.Reader;
        _startTimestamp = _context.Time.GetTimestamp();
        Readers = new LoadReaders(_context, _channel.Writer);
    }

    /// <summary>The readers of this load: which read it, and how many at once.</summary>
    private LoadReaders Readers { get; }

    /// <summary>The file <see cref="MoveNextAsync"/> handed over last.</summary>
    public LoadedFile Current { get; private set; } = null!;

    /// <summary>Hands over the next file; <see langword="false"/> when every file was handed over.</summary>
    /// <remarks>
    /// While no file is ready, the calling thread drives the reader it was given (a ring, or reads of its own) rather
    /// than wait for the others. A failed file is thrown with <see cref="LoadErrorHandling.Throw"/>.
    /// </remarks>
    /// <exception cref="ObjectDisposedException">The load was disposed.</exception>
    public ValueTask<bool> MoveNextAsync()
    {
        if (_disposed)
        {
            ThrowDisposed();
        }

        if (!_started)
        {
            Start();
        }

        while (true)
        {
            if (_consumerReader?.HasResults == true)
            {
                // Turns finished reads into new ones while the consumer works, so that the kernel's queue stays full.
                _consumerReader.Drive(wait: false);
            }

            if (!_delivery.TryTake(out LoadedFile? file))
            {
                return new ValueTask<bool>(Finished());
            }

            if (file is not null)
            {
                return new ValueTask<bool>(HandOver(file));
            }

            if (_consumerReader?.Drive(wait: true) == true)
            {
                continue;
            }

            if (_delivery.TryWaitAsync(out short token))
            {
                return new ValueTask<bool>(this, token);
            }
        }
    }

    bool IValueTaskSource<bool>.GetResult(short token) =>
        _delivery.TakeSignaled(token) is { } file ? HandOver(file) : Finished();

    ValueTaskSourceStatus IValueTaskSource<bool>.GetStatus(short token) => _delivery.GetStatus(token);

    void IValueTaskSource<bool>.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _delivery.OnCompleted(continuation, state, token, flags);

    /// <summary>What the load did, once every file was handed over.</summary>
    public LoadSummary Complete()
    {
        (int current, int initial, IReadOnlyList<int> history) = Readers.Parallelism();
        FileCursor files = _context.Files;
        return new LoadSummary(
            _delivery.FileCount,
            _delivery.ByteCount,
            _delivery.Failures?.ToArray() ?? [],
            _context.Time.GetElapsedTime(_startTimestamp),
            current,
            initial,
            history,
            // Described when asked for: a reader may still be at it (it costs a new process more than a small load).
            () => Readers.Device ?? (files.Count == 0 ? null : Readers.DescribeDevice(files.PathAt(0))),
            _context.Budget.Peak,
            _context.PeakConcurrentReads);
    }

    /// <summary>Stops the load, waits for the reads in flight, and returns the buffer of every file not handed over.</summary>
    public ValueTask DisposeAsync()
    {
        if (!_lifetime.Close())
        {
            return default;
        }

        _disposed = true;
        bool complete = _started && _delivery.AllHandedOver;

        // A load that handed every file over has nothing left to stop: its readers are leaving (canceling would only
        // cost its callbacks' preparation).
        if (!complete)
        {
            _lifetime.Stop();
        }

        // The kernel writes into the consumer's ring's buffers until its reads complete: waited for before anything is returned.
        _consumerReader?.Dispose();

        // Once every file is handed over, readers only have their loop to leave: waited for without going asynchronous.
        if (!_lifetime.ReadersRunning(waitUntilIdle: _delivery.AllHandedOver) && Readers.PipelineCompletion.IsCompleted)
        {
            Release();
            return default;
        }

        return DisposeSlowAsync();
    }

    // Out of line, so that a load whose readers are done when it is disposed never loads what waiting takes.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private async ValueTask DisposeSlowAsync()
    {
        await _lifetime.ReadersExited().ConfigureAwait(false);
        await Readers.PipelineCompletion.ConfigureAwait(false);
        Release();
    }

    /// <summary>Returns what was read and not handed over, and the load's own resources.</summary>
    private void Release()
    {
        _context.Files.CloseFolders();
        _delivery.Release();
        _stopRegistration.Dispose();
        _lifetime.Dispose();
        if (_started)
        {
            Readers.Released();
        }
    }

    private void Start()
    {
        _started = true;
        FileCursor files = _context.Files;
        files.Enumerate(_lifetime.CallerToken);
        _stopRegistration = _context.StopToken.UnsafeRegister(static state => ((LoadRun)state!).OnStopped(), this);
        if (_context.Options.Ordering == LoadOrdering.Input)
        {
            _context.Budget.SetDue(0);
        }

        if (files.Count == 0)
        {
            _channel.Writer.OpenWindow(1);
            return;
        }

        _consumerReader = Readers.Start();
    }

    /// <summary>Logs the load's end, the first time the consumer finds every file handed over; returns <see langword="false"/>.</summary>
    private bool Finished()
    {
        if (!_finished)
        {
            _finished = true;
            if (_context.Logger is not null)
            {
                LogCompleted(_context.Logger);
            }
        }

        return false;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void LogCompleted(ILogger logger) => logger.LoadCompleted(
        _delivery.FileCount,
        _delivery.ByteCount,
        (long)_context.Time.GetElapsedTime(_startTimestamp).TotalMilliseconds,
        Readers.Parallelism().Current,
        _delivery.Failures?.Count ?? 0);

    private void OnStopped()
    {
        _context.Budget.Stop();
        Readers.Stopped();
        _delivery.Stopped();
    }

    private bool HandOver(LoadedFile file)
    {
        _delivery.HandOver(file);
        Current = file;
        return true;
    }

    [System.Diagnostics.CodeAnalysis.DoesNotReturn]
    private static void ThrowDisposed() => throw new ObjectDisposedException(
        "IAsyncEnumerator<LoadedFile>", "The load's enumerator was disposed: enumerate FileLoader.LoadAsync's result again for a new load.");
}
