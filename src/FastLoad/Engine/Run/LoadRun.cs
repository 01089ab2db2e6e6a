using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using System.Threading.Tasks.Sources;
using FastLoad.FileSystem;
using Microsoft.Extensions.Logging;

namespace FastLoad.Engine;

/// <summary>
/// One load, as its consumer sees it: a cursor from which readers claim the set's files in order, and the hand-over of
/// what they read, in completion or input order, within the memory budget and a window of files. Which readers read
/// is <see cref="LoadReaders"/>'s choice; the consumer's thread drives one of them (<see cref="ConsumerThreadReader"/>)
/// whenever no file is ready, so that a small load starts no thread and a ring's queue stays full while the consumer
/// works. Every file read, success or error, is handed over exactly once or returned when the load is disposed.
/// </summary>
/// <remarks>
/// The start path uses only the runtime's precompiled code (no generic instantiations over this library's value types,
/// no async state machines, no Dataflow), so that the first load of a process spends its time reading, not compiling.
/// </remarks>
internal sealed class LoadRun : IAsyncEnumerator<LoadedFile>, IValueTaskSource<bool>
{
    private readonly FileSet _files;
    private readonly CancellationTokenSource _stop;
    private readonly CancellationToken _cancellationToken;
    private readonly CancellationToken _enumeratorCancellationToken;
    private readonly bool _inputOrder;
    private readonly long _startTimestamp;

    // Consumer side, guarded by _sync.
    private readonly object _sync = new();
    private DeliveryQueue _ready = null!;
    private List<LoadFailure>? _failures;
    private ManualResetValueTaskSourceCore<bool> _signal;
    private bool _consumerWaiting;
    private bool _consumerBlocked;
    private Exception? _fault;
    private int _nextIndex;
    private int _handedOver;
    private int _fileCount;
    private long _byteCount;
    private int _activeReaders;
    private TaskCompletionSource? _readersExited;

    /// <summary>
    /// The bytes of files read and not yet taken beyond which the rings open no more files. Reads ahead of the consumer
    /// only keep the device busy while the consumer works; each holds a buffer, fresh memory in a new process, so a
    /// warm load that read as far ahead as the budget allows touched that much memory for nothing (docs/measurements/benchmarks.md).
    /// </summary>
    internal const long ReadAheadBytes = 8L * 1024 * 1024;

    // A helper ring waiting for room: the free delivery slots it waits for (0: none waits). Room also needs the files
    // read and not yet taken below the read-ahead.
    private readonly object _roomGate = new();
    private volatile int _roomWanted;
    private long _readyBytes;

    private string[] _paths = [];
    private UndecodableNames? _undecodable;
    private SemaphoreSlim? _deliverySlots;
    private int _deliverySlotsHeldBack;
    private CancellationTokenRegistration _stopRegistration;
    private ConsumerThreadReader? _consumerReader;
    private bool _started;
    private bool _finished;
    private bool _disposed;
    private int _claimed;

    // What was read so far (the readers' size prior) and the most reads at once.
    private long _bytesSeen;
    private int _filesSeen;
    private int _concurrentReads;
    private int _peakConcurrentReads;

    /// <summary>Prepares a load; it starts on the first <see cref="MoveNextAsync"/>. Both tokens stop it (the second is an enumeration's own).</summary>
    public LoadRun(FileSet files, LoadEngine engine, CancellationToken cancellationToken, CancellationToken enumeratorCancellationToken = default)
    {
        _files = files;
        Options = engine.Options;
        ReadSettings = engine.CreateReadSettings();
        Time = engine.Time;
        Instruments = engine.Instruments;
        Logger = engine.Logger;
        Hooks = engine.Hooks;
        _inputOrder = Options.Ordering == LoadOrdering.Input;
        Budget = new ByteBudget(Options.MemoryBudget);
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
        _startTimestamp = Time.GetTimestamp();
        Readers = new LoadReaders(this);
    }

    public ByteBudget Budget { get; }

    public FileLoaderOptions Options { get; }

    /// <summary>Where to log; <see langword="null"/> when the loader has no logger, so that logging costs nothing.</summary>
    public ILogger? Logger { get; }

    public LoadInstruments Instruments { get; }

    public TimeProvider Time { get; }

    public LoadTestHooks Hooks { get; }

    public ReadSettings ReadSettings { get; }

    /// <summary>The readers of this load: which read it, and how many at once.</summary>
    public LoadReaders Readers { get; }

    public CancellationToken StopToken { get; }

    public FileSet Files => _files;

    /// <summary>The file <see cref="MoveNextAsync"/> handed over last.</summary>
    public LoadedFile Current { get; private set; } = null!;

    internal string PathAt(int index) => _paths[index];

    internal int PathCount => _paths.Length;

    internal SemaphoreSlim DeliverySlots => _deliverySlots!;

    internal int FilesLeft => Math.Max(0, _paths.Length - Volatile.Read(ref _claimed));

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

            LoadedFile? file;
            lock (_sync)
            {
                // Every file handed over: the load is complete, whatever was asked of it since.
                if (_handedOver == _paths.Length)
                {
                    return new ValueTask<bool>(Finished());
                }

                // A stopped load hands over nothing more, even files already read: the consumer asked for the stop.
                ThrowIfStoppedLocked();
                TryTakeLocked(out file);
            }

            if (file is not null)
            {
                return new ValueTask<bool>(HandOver(file));
            }

            if (_consumerReader?.Drive(wait: true) == true)
            {
                continue;
            }

            lock (_sync)
            {
                if (_ready.HasNext(_nextIndex)
                    || _handedOver == _paths.Length
                    || _fault is not null
                    || _stop.IsCancellationRequested)
                {
                    continue;
                }

                if (SynchronizationContext.Current is null && ThreadPool.ThreadCount == 0)
                {
                    // A new process has no pool threads yet to run an asynchronous continuation on: starting them costs
                    // more than the reads in flight take, so the calling thread waits for those, as a loop would.
                    _consumerBlocked = true;
                    Monitor.Wait(_sync);
                    _consumerBlocked = false;
                    continue;
                }

                // Set here, not in the constructor: a load that never waits asynchronously then needs no code compiled for it.
                _signal.RunContinuationsAsynchronously = true;
                _signal.Reset();
                _consumerWaiting = true;
                return new ValueTask<bool>(this, _signal.Version);
            }
        }
    }

    bool IValueTaskSource<bool>.GetResult(short token)
    {
        _signal.GetResult(token);
        LoadedFile? file;
        lock (_sync)
        {
            if (_handedOver == _paths.Length)
            {
                return Finished();
            }

            ThrowIfStoppedLocked();
            if (!TryTakeLocked(out file))
            {
                return Finished();
            }
        }

        return HandOver(file);
    }

    ValueTaskSourceStatus IValueTaskSource<bool>.GetStatus(short token) => _signal.GetStatus(token);

    void IValueTaskSource<bool>.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _signal.OnCompleted(continuation, state, token, flags);

    /// <summary>What the load did, once every file was handed over.</summary>
    public LoadSummary Complete()
    {
        (int current, int initial, IReadOnlyList<int> history) = Readers.Parallelism();
        return new LoadSummary(
            _fileCount,
            _byteCount,
            _failures?.ToArray() ?? [],
            Time.GetElapsedTime(_startTimestamp),
            current,
            initial,
            history,
            // Described when asked for: a reader may still be at it (it costs a new process more than a small load).
            () => Readers.Device ?? (_paths.Length == 0 ? null : Readers.DescribeDevice(_paths[0])),
            Budget.Peak,
            Volatile.Read(ref _peakConcurrentReads));
    }

    /// <summary>Stops the load, waits for the reads in flight, and returns the buffer of every file not handed over.</summary>
    public ValueTask DisposeAsync()
    {
        bool complete;
        lock (_sync)
        {
            if (_disposed)
            {
                return default;
            }

            _disposed = true;
            complete = _started && _handedOver == _paths.Length;
        }

        // A load that handed every file over has nothing left to stop: its readers are leaving (canceling would only
        // cost its callbacks' preparation).
        if (!complete)
        {
            _stop.Cancel();
        }

        // The kernel writes into the consumer's ring's buffers until its reads complete: waited for before anything is returned.
        _consumerReader?.Dispose();
        bool readersRunning;
        lock (_sync)
        {
            WaitForIdleReadersLocked();
            readersRunning = _activeReaders > 0;
        }

        if (!readersRunning && Readers.PipelineCompletion.IsCompleted)
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
        Task readersExited;
        lock (_sync)
        {
            readersExited = _activeReaders == 0
                ? Task.CompletedTask
                : (_readersExited ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;
        }

        await readersExited.ConfigureAwait(false);
        await Readers.PipelineCompletion.ConfigureAwait(false);
        Release();
    }

    /// <summary>Returns what was read and not handed over, and the load's own resources.</summary>
    private void Release()
    {
        lock (_sync)
        {
            _ready?.DisposeAll();
        }

        _stopRegistration.Dispose();
        _deliverySlots?.Dispose();
        _stop.Dispose();
        if (_started)
        {
            Readers.Released();
        }
    }

    /// <summary>Claims the next file of the set for a reader; <see langword="false"/> when none is left or the load stops.</summary>
    /// <remarks><paramref name="wait"/>: whether to wait for a delivery slot (a reader thread) or give up at once (the consumer's thread).</remarks>
    internal bool TryClaim(bool wait, out int index)
    {
        index = -1;
        if (Volatile.Read(ref _claimed) >= _paths.Length)
        {
            return false;
        }

        // The slot is taken before the file is claimed: a reader waiting for one must not hold back a file that
        // delivery in input order waits for.
        if (wait)
        {
            try
            {
                _deliverySlots!.Wait(StopToken);
            }
            catch (OperationCanceledException)
            {
                return false;
            }
        }
        else if (!_deliverySlots!.Wait(0))
        {
            return false;
        }

        if (TryClaimIndex(out index))
        {
            return true;
        }

        _deliverySlots!.Release();
        return false;
    }

    /// <summary>
    /// Waits until at least <paramref name="slots"/> delivery slots are free, for a reader that claims in batches;
    /// <see langword="false"/> when no file is left to claim or the load stops.
    /// </summary>
    internal bool WaitForDeliveryRoom(int slots)
    {
        lock (_roomGate)
        {
            // Said before the room is looked at: a hand-over that frees it after the look sees the wish and wakes this
            // thread (it takes the gate, which the wait gives up).
            _roomWanted = slots;
            Interlocked.MemoryBarrier();
            try
            {
                while (_deliverySlots!.CurrentCount < slots || ReadAheadFull)
                {
                    if (FilesLeft == 0 || _stop.IsCancellationRequested)
                    {
                        return false;
                    }

                    Monitor.Wait(_roomGate);
                }
            }
            finally
            {
                _roomWanted = 0;
            }
        }

        return FilesLeft > 0 && !_stop.IsCancellationRequested;
    }

    /// <summary>Whether the files read and not yet taken hold <see cref="ReadAheadBytes"/> or more: the rings open no more files.</summary>
    internal bool ReadAheadFull => Volatile.Read(ref _readyBytes) >= ReadAheadBytes;

    /// <summary>Claims the next file without a delivery slot (the pipeline takes its slots in its own order).</summary>
    internal bool TryClaimIndex(out int index)
    {
        index = Interlocked.Increment(ref _claimed) - 1;
        return index < _paths.Length;
    }

    /// <summary>The mean size of the files read so far, or <paramref name="fallback"/> before any.</summary>
    internal long MeanLengthSeen(long fallback)
    {
        int files = Volatile.Read(ref _filesSeen);
        return files == 0 ? fallback : Math.Max(1, Volatile.Read(ref _bytesSeen) / files);
    }

    /// <summary>Counts a blocking read as running, for the summary's peak; <see cref="EndRead"/> ends it.</summary>
    internal void BeginRead() => InterlockedMax.TryRaise(ref _peakConcurrentReads, Interlocked.Increment(ref _concurrentReads));

    internal void EndRead() => Interlocked.Decrement(ref _concurrentReads);

    internal void RecordConcurrency(int concurrent) => InterlockedMax.TryRaise(ref _peakConcurrentReads, concurrent);

    /// <summary>Checks a path the set could not decode before it is opened.</summary>
    internal void CheckName(int index, string path)
    {
        if (_undecodable is not null && FilePlanner.CheckName(path, _undecodable.Contains(index)) is { } badName)
        {
            throw badName;
        }
    }

    /// <summary>
    /// Hands a file read by any reader (its bytes charged to the budget) to the consumer side, then records it in the
    /// metrics and the log: once published, a failing diagnostic can no longer change what happens to the file.
    /// </summary>
    internal void PublishRead(int index, FileContents contents, long charge, long startedTimestamp)
    {
        string path = _paths[index];
        long length = contents.Length;
        Interlocked.Add(ref _bytesSeen, length);
        Interlocked.Increment(ref _filesSeen);
        Publish(new LoadedFile(path, index, contents, charge));
        Instruments.FileRead(length, Time.GetElapsedTime(startedTimestamp));
        Logger?.FileLoaded(path, length);
        LoadObservers.FileRead(path);
    }

    /// <summary>Hands the failure to open or read a file to the consumer side.</summary>
    internal void PublishFailure(int index, Exception error)
    {
        string path = _paths[index];
        Publish(new LoadedFile(path, index, error is FileNotFoundException notFound ? FilePlanner.ExplainNotFound(path, notFound) : error, budgetCharge: 0));
        Instruments.FileFailed();
    }

    /// <summary>Counts a reader thread as running; <see cref="DisposeAsync"/> waits for each to call <see cref="ReaderExited"/>.</summary>
    /// <returns><see langword="false"/>, counting nothing, when the load was disposed: the reader must not start.</returns>
    internal bool ReaderStarted()
    {
        lock (_sync)
        {
            if (_disposed)
            {
                return false;
            }

            _activeReaders++;
            return true;
        }
    }

    internal void ReaderExited()
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

    /// <summary>
    /// Stops the load because its machinery failed; the consumer sees <paramref name="error"/>. A load its consumer
    /// disposed has nobody left to tell: the error is logged.
    /// </summary>
    internal void Fail(Exception error)
    {
        // Counted as a reader meanwhile: the caller may be a thread the load does not wait for (the one describing the
        // storage), and the load's release disposes what is canceled here.
        if (!ReaderStarted())
        {
            Logger?.LoadFailedAfterDispose(error);
            return;
        }

        try
        {
            lock (_sync)
            {
                _fault ??= error;
            }

            WakeConsumer();
            _stop.Cancel();
        }
        finally
        {
            ReaderExited();
        }
    }

    private void Start()
    {
        _started = true;
        _paths = FilePlanner.Enumerate(_files, _cancellationToken, out _undecodable);
        _stopRegistration = StopToken.UnsafeRegister(static state => ((LoadRun)state!).OnStopped(), this);
        if (_inputOrder)
        {
            Budget.SetDue(0);
        }

        if (_paths.Length == 0)
        {
            OpenDeliveryWindow(1);
            return;
        }

        _consumerReader = Readers.Start();
    }

    /// <summary>
    /// Bounds the files claimed and not yet handed over (by count, beside the budget's bytes, so that a set of empty or
    /// failing files cannot pile up); with input order it is also the reorder window. Set by the readers before any claim.
    /// </summary>
    /// <param name="files">The window.</param>
    /// <param name="whileCached">
    /// The part of it open until a reader first waits for the device (<see cref="WidenDeliveryWindow"/>). While the files
    /// come from the cache, reading far ahead of the consumer gains nothing and puts every file in a fresh buffer; a
    /// narrow window lets the next files reuse the buffers the consumer hands back.
    /// </param>
    internal void OpenDeliveryWindow(int files, int whileCached = int.MaxValue)
    {
        int open = Math.Min(files, whileCached);
        _ready = new DeliveryQueue(files, _inputOrder);
        _deliverySlots = new SemaphoreSlim(open);
        _deliverySlotsHeldBack = files - open;
    }

    /// <summary>Opens the whole delivery window once a reader waits for the device: reads ahead then keep it busy. Any thread.</summary>
    internal void WidenDeliveryWindow()
    {
        int heldBack = Interlocked.Exchange(ref _deliverySlotsHeldBack, 0);
        if (heldBack > 0)
        {
            _deliverySlots!.Release(heldBack);
            WakeRoomWaiters();
        }
    }

    /// <summary>Once every file is handed over, readers only have their loop to leave: waits for that without going asynchronous.</summary>
    private void WaitForIdleReadersLocked()
    {
        while (_activeReaders > 0 && _handedOver == _paths.Length)
        {
            Monitor.Wait(_sync);
        }
    }

    /// <summary>Logs the load's end, the first time the consumer finds every file handed over; returns <see langword="false"/>.</summary>
    private bool Finished()
    {
        if (!_finished)
        {
            _finished = true;
            if (Logger is not null)
            {
                LogCompleted(Logger);
            }
        }

        return false;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void LogCompleted(ILogger logger) => logger.LoadCompleted(
        _fileCount,
        _byteCount,
        (long)Time.GetElapsedTime(_startTimestamp).TotalMilliseconds,
        Readers.Parallelism().Current,
        _failures?.Count ?? 0);

    private void OnStopped()
    {
        Budget.Stop();
        Readers.Stopped();
        WakeRoomWaiters();
        WakeConsumer();
    }

    private void WakeRoomWaiters()
    {
        lock (_roomGate)
        {
            Monitor.PulseAll(_roomGate);
        }
    }

    private void WakeConsumer()
    {
        bool wake;
        lock (_sync)
        {
            wake = _consumerWaiting;
            _consumerWaiting = false;
            if (_consumerBlocked)
            {
                Monitor.PulseAll(_sync);
            }
        }

        if (wake)
        {
            _signal.SetResult(true);
        }
    }

    private void Publish(LoadedFile file)
    {
        bool wake;
        lock (_sync)
        {
            _ready.Add(file);
            Interlocked.Add(ref _readyBytes, file.BudgetCharge);
            wake = !_inputOrder || file.Index == _nextIndex;

            if (wake && _consumerBlocked)
            {
                Monitor.PulseAll(_sync);
            }

            wake &= _consumerWaiting;
            if (wake)
            {
                _consumerWaiting = false;
            }
        }

        if (wake)
        {
            _signal.SetResult(true);
        }
    }

    private bool TryTakeLocked([System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out LoadedFile? file)
    {
        if (!_ready.TryTake(_nextIndex, out file))
        {
            return false;
        }

        if (_inputOrder)
        {
            _nextIndex++;
        }

        return true;
    }

    /// <summary>Releases the file's budget and slot and records it; throws its error with <see cref="LoadErrorHandling.Throw"/>.</summary>
    private bool HandOver(LoadedFile file)
    {
        Budget.Release(file.BudgetCharge);
        if (_inputOrder)
        {
            // Only once this file's bytes left the budget: the next may go beyond it, but never two files at once.
            Budget.SetDue(file.Index + 1);
        }

        Interlocked.Add(ref _readyBytes, -file.BudgetCharge);
        _deliverySlots!.Release();
        if (_roomWanted > 0 && _deliverySlots.CurrentCount >= _roomWanted && !ReadAheadFull)
        {
            WakeRoomWaiters();
        }

        _handedOver++;
        if (file.Error is null)
        {
            _fileCount++;
            _byteCount += file.Length;
        }
        else
        {
            HandOverFailure(file);
        }

        Current = file;
        return true;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void HandOverFailure(LoadedFile file)
    {
        (_failures ??= []).Add(new LoadFailure(file.Path, file.Error!));
        Logger?.FileFailed(file.Path, file.Error!);
        if (Options.ErrorHandling == LoadErrorHandling.Throw)
        {
            file.Dispose();
            ExceptionDispatchInfo.Throw(file.Error!);
        }
    }

    [System.Diagnostics.CodeAnalysis.DoesNotReturn]
    private static void ThrowDisposed() => throw new ObjectDisposedException(
        "IAsyncEnumerator<LoadedFile>", "The load's enumerator was disposed: enumerate FileLoader.LoadAsync's result again for a new load.");

    private void ThrowIfStoppedLocked()
    {
        if (_fault is not null)
        {
            ExceptionDispatchInfo.Throw(_fault);
        }

        _cancellationToken.ThrowIfCancellationRequested();
        _enumeratorCancellationToken.ThrowIfCancellationRequested();
        if (_stop.IsCancellationRequested)
        {
            throw new OperationCanceledException(StopToken);
        }
    }
}
