using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using System.Threading.Tasks.Sources;
using FastLoad.FileSystem;
using Microsoft.Extensions.Logging;

namespace FastLoad.Engine;

/// <summary>
/// The hand-over of a load's files from its readers to its consumer, and every limit on what is read and not yet
/// taken: the delivery slots (a window of files, with input order also the reorder window), the bytes read ahead, the
/// byte budget's release. Readers use its <see cref="Writer"/>, the consumer its <see cref="Reader"/>; the consumer's
/// state is guarded by one lock, which a reader takes once per file it publishes.
/// </summary>
internal sealed class DeliveryChannel
{
    /// <summary>
    /// The bytes of files read and not yet taken beyond which the rings open no more files. Reads ahead of the consumer
    /// only keep the device busy while the consumer works; each holds a buffer, fresh memory in a new process, so a
    /// warm load that read as far ahead as the budget allows touched that much memory for nothing (docs/measurements/benchmarks.md).
    /// </summary>
    internal const long ReadAheadBytes = 8L * 1024 * 1024;

    private readonly LoadContext _context;
    private readonly FileCursor _files;
    private readonly bool _inputOrder;

    // The consumer's side, guarded by _sync.
    private readonly object _sync = new();
    private DeliveryQueue _ready = null!;
    private ManualResetValueTaskSourceCore<bool> _signal;
    private bool _consumerWaiting;
    private bool _consumerBlocked;
    private Exception? _fault;
    private int _nextIndex;

    // Only the consumer's thread changes these.
    private int _handedOver;
    private int _fileCount;
    private long _byteCount;
    private List<LoadFailure>? _failures;

    // A helper ring waiting for room: the free delivery slots it waits for (0: none waits). Room also needs the files
    // read and not yet taken below the read-ahead.
    private readonly object _roomGate = new();
    private volatile int _roomWanted;
    private long _readyBytes;

    private SemaphoreSlim? _slots;
    private int _slotsHeldBack;

    // What was read so far: the readers' size prior.
    private long _bytesSeen;
    private int _filesSeen;

    public DeliveryChannel(LoadContext context)
    {
        _context = context;
        _files = context.Files;
        _inputOrder = context.Options.Ordering == LoadOrdering.Input;
        Writer = new DeliveryWriter(this);
        Reader = new DeliveryReader(this);
    }

    /// <summary>The readers' side.</summary>
    public DeliveryWriter Writer { get; }

    /// <summary>The consumer's side.</summary>
    public DeliveryReader Reader { get; }

    private bool ReadAheadFull => Volatile.Read(ref _readyBytes) >= ReadAheadBytes;

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

    // Only the consumer's thread hands files over, so its reads need no lock.
    private bool AllHandedOver => _handedOver == _files.Count;

    private bool TryTakeLocked([NotNullWhen(true)] out LoadedFile? file)
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

    private void ThrowIfStoppedLocked()
    {
        if (_fault is not null)
        {
            ExceptionDispatchInfo.Throw(_fault);
        }

        _context.Lifetime.ThrowIfStopped();
    }

    /// <summary>The readers' side: what they claim, how far ahead they may read, and where they put what they read.</summary>
    internal sealed class DeliveryWriter(DeliveryChannel channel)
    {
        /// <summary>Whether the files read and not yet taken hold <see cref="ReadAheadBytes"/> or more: the rings open no more files.</summary>
        public bool ReadAheadFull => channel.ReadAheadFull;

        /// <summary>The delivery slots, for a reader that takes them in its own order (the pipeline's lanes).</summary>
        public SemaphoreSlim Slots => channel._slots!;

        /// <summary>
        /// Bounds the files claimed and not yet handed over (by count, beside the budget's bytes, so that a set of empty or
        /// failing files cannot pile up); with input order it is also the reorder window. Set by the readers before any claim.
        /// </summary>
        /// <param name="files">The window.</param>
        /// <param name="whileCached">
        /// The part of it open until a reader first waits for the device (<see cref="WidenWindow"/>). While the files
        /// come from the cache, reading far ahead of the consumer gains nothing and puts every file in a fresh buffer; a
        /// narrow window lets the next files reuse the buffers the consumer hands back.
        /// </param>
        public void OpenWindow(int files, int whileCached = int.MaxValue)
        {
            int open = Math.Min(files, whileCached);
            channel._ready = new DeliveryQueue(files, channel._inputOrder);
            channel._slots = new SemaphoreSlim(open);
            channel._slotsHeldBack = files - open;
        }

        /// <summary>Opens the whole delivery window once a reader waits for the device: reads ahead then keep it busy. Any thread.</summary>
        public void WidenWindow()
        {
            int heldBack = Interlocked.Exchange(ref channel._slotsHeldBack, 0);
            if (heldBack > 0)
            {
                channel._slots!.Release(heldBack);
                channel.WakeRoomWaiters();
            }
        }

        /// <summary>Claims the next file of the set for a reader; <see langword="false"/> when none is left or the load stops.</summary>
        /// <remarks><paramref name="wait"/>: whether to wait for a delivery slot (a reader thread) or give up at once (the consumer's thread).</remarks>
        public bool TryClaim(bool wait, out int index)
        {
            index = -1;
            if (channel._files.Exhausted)
            {
                return false;
            }

            // The slot is taken before the file is claimed: a reader waiting for one must not hold back a file that
            // delivery in input order waits for.
            SemaphoreSlim slots = channel._slots!;
            if (wait)
            {
                try
                {
                    slots.Wait(channel._context.StopToken);
                }
                catch (OperationCanceledException)
                {
                    return false;
                }
            }
            else if (!slots.Wait(0))
            {
                return false;
            }

            if (channel._files.TryClaim(out index))
            {
                return true;
            }

            slots.Release();
            return false;
        }

        /// <summary>
        /// Waits until at least <paramref name="slots"/> delivery slots are free, for a reader that claims in batches;
        /// <see langword="false"/> when no file is left to claim or the load stops.
        /// </summary>
        public bool WaitForRoom(int slots)
        {
            CancellationToken stop = channel._context.StopToken;
            lock (channel._roomGate)
            {
                // Said before the room is looked at: a hand-over that frees it after the look sees the wish and wakes this
                // thread (it takes the gate, which the wait gives up).
                channel._roomWanted = slots;
                Interlocked.MemoryBarrier();
                try
                {
                    while (channel._slots!.CurrentCount < slots || channel.ReadAheadFull)
                    {
                        if (channel._files.Left == 0 || stop.IsCancellationRequested)
                        {
                            return false;
                        }

                        Monitor.Wait(channel._roomGate);
                    }
                }
                finally
                {
                    channel._roomWanted = 0;
                }
            }

            return channel._files.Left > 0 && !stop.IsCancellationRequested;
        }

        /// <summary>The mean size of the files read so far, or <paramref name="fallback"/> before any.</summary>
        public long MeanLengthSeen(long fallback)
        {
            int files = Volatile.Read(ref channel._filesSeen);
            return files == 0 ? fallback : Math.Max(1, Volatile.Read(ref channel._bytesSeen) / files);
        }

        /// <summary>
        /// Hands a file read by any reader (its bytes charged to the budget) to the consumer, then records it in the
        /// metrics and the log: once published, a failing diagnostic can no longer change what happens to the file.
        /// </summary>
        public void PublishRead(int index, FileContents contents, long charge, long startedTimestamp)
        {
            string path = channel._files.PathAt(index);
            long length = contents.Length;
            Interlocked.Add(ref channel._bytesSeen, length);
            Interlocked.Increment(ref channel._filesSeen);
            channel.Publish(new LoadedFile(path, index, contents, charge));
            LoadContext context = channel._context;
            context.Instruments.FileRead(length, context.Time.GetElapsedTime(startedTimestamp));
            context.Logger?.FileLoaded(path, length);
            LoadObservers.FileRead(path);
        }

        /// <summary>Hands the failure to open or read a file to the consumer.</summary>
        public void PublishFailure(int index, Exception error)
        {
            string path = channel._files.PathAt(index);
            channel.Publish(new LoadedFile(path, index, error is FileNotFoundException notFound ? FilePlanner.ExplainNotFound(path, notFound) : error, budgetCharge: 0));
            channel._context.Instruments.FileFailed();
        }

        /// <summary>
        /// Stops the load because its machinery failed; the consumer sees <paramref name="error"/>. A load its consumer
        /// disposed has nobody left to tell: the error is logged.
        /// </summary>
        public void Fail(Exception error)
        {
            // Counted as a reader meanwhile: the caller may be a thread the load does not wait for (the one describing the
            // storage), and the load's release disposes what is canceled here.
            LoadLifetime lifetime = channel._context.Lifetime;
            if (!lifetime.ReaderStarted())
            {
                channel._context.Logger?.LoadFailedAfterDispose(error);
                return;
            }

            try
            {
                lock (channel._sync)
                {
                    channel._fault ??= error;
                }

                channel.WakeConsumer();
                lifetime.Stop();
            }
            finally
            {
                lifetime.ReaderExited();
            }
        }
    }

    /// <summary>The consumer's side: takes the files in delivery order, waits for the next, and counts what it took.</summary>
    internal sealed class DeliveryReader(DeliveryChannel channel)
    {
        /// <summary>How many files were handed over without an error.</summary>
        public int FileCount => channel._fileCount;

        /// <summary>Their bytes.</summary>
        public long ByteCount => channel._byteCount;

        /// <summary>The files handed over with an error, in order.</summary>
        public IReadOnlyList<LoadFailure>? Failures => channel._failures;

        /// <summary>Whether every file of the set was handed over. The consumer's thread.</summary>
        public bool AllHandedOver => channel.AllHandedOver;

        /// <summary>
        /// Takes the next file if it is ready (<paramref name="file"/>: <see langword="null"/> when not);
        /// <see langword="false"/> when every file was handed over.
        /// </summary>
        /// <exception cref="OperationCanceledException">The load stopped: it hands over nothing more, even files already read.</exception>
        public bool TryTake(out LoadedFile? file)
        {
            lock (channel._sync)
            {
                // Every file handed over: the load is complete, whatever was asked of it since.
                if (channel.AllHandedOver)
                {
                    file = null;
                    return false;
                }

                // A stopped load hands over nothing more, even files already read: the consumer asked for the stop.
                channel.ThrowIfStoppedLocked();
                channel.TryTakeLocked(out file);
                return true;
            }
        }

        /// <summary>
        /// Prepares the consumer's wait for the next file: <see langword="true"/> with the <paramref name="token"/> of the
        /// signal to wait for (<see cref="GetStatus"/>, <see cref="OnCompleted"/>, <see cref="TakeSignaled"/>), or
        /// <see langword="false"/> when it should look again: something changed, or it waited on this thread.
        /// </summary>
        public bool TryWaitAsync(out short token)
        {
            token = 0;
            lock (channel._sync)
            {
                if (channel._ready.HasNext(channel._nextIndex)
                    || channel.AllHandedOver
                    || channel._fault is not null
                    || channel._context.Lifetime.IsStopped)
                {
                    return false;
                }

                if (CallerWaits.Cheaper)
                {
                    channel._consumerBlocked = true;
                    Monitor.Wait(channel._sync);
                    channel._consumerBlocked = false;
                    return false;
                }

                // Set here, not in the constructor: a load that never waits asynchronously then needs no code compiled for it.
                channel._signal.RunContinuationsAsynchronously = true;
                channel._signal.Reset();
                channel._consumerWaiting = true;
                token = channel._signal.Version;
                return true;
            }
        }

        public ValueTaskSourceStatus GetStatus(short token) => channel._signal.GetStatus(token);

        public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
            channel._signal.OnCompleted(continuation, state, token, flags);

        /// <summary>Takes the file the signal announced; <see langword="null"/> when none is left to hand over.</summary>
        public LoadedFile? TakeSignaled(short token)
        {
            channel._signal.GetResult(token);
            lock (channel._sync)
            {
                if (channel.AllHandedOver)
                {
                    return null;
                }

                channel.ThrowIfStoppedLocked();
                return channel.TryTakeLocked(out LoadedFile? file) ? file : null;
            }
        }

        /// <summary>Releases the file's budget and slot and records it; throws its error with <see cref="LoadErrorHandling.Throw"/>.</summary>
        public void HandOver(LoadedFile file)
        {
            ByteBudget budget = channel._context.Budget;
            budget.Release(file.BudgetCharge);
            if (channel._inputOrder)
            {
                // Only once this file's bytes left the budget: the next may go beyond it, but never two files at once.
                budget.SetDue(file.Index + 1);
            }

            Interlocked.Add(ref channel._readyBytes, -file.BudgetCharge);
            SemaphoreSlim slots = channel._slots!;
            slots.Release();
            if (channel._roomWanted > 0 && slots.CurrentCount >= channel._roomWanted && !channel.ReadAheadFull)
            {
                channel.WakeRoomWaiters();
            }

            channel._handedOver++;
            if (file.Error is null)
            {
                channel._fileCount++;
                channel._byteCount += file.Length;
            }
            else
            {
                HandOverFailure(file);
            }
        }

        /// <summary>The load stopped: the consumer and the readers waiting for room look again.</summary>
        public void Stopped()
        {
            channel.WakeRoomWaiters();
            channel.WakeConsumer();
        }

        /// <summary>Returns the buffer of every file read and not handed over, and the slots.</summary>
        public void Release()
        {
            lock (channel._sync)
            {
                channel._ready?.DisposeAll();
            }

            channel._slots?.Dispose();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private void HandOverFailure(LoadedFile file)
        {
            (channel._failures ??= []).Add(new LoadFailure(file.Path, file.Error!));
            channel._context.Logger?.FileFailed(file.Path, file.Error!);
            if (channel._context.Options.ErrorHandling == LoadErrorHandling.Throw)
            {
                file.Dispose();
                ExceptionDispatchInfo.Throw(file.Error!);
            }
        }
    }
}
