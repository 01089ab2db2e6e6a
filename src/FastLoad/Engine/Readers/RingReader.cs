using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Engine;

/// <summary>
/// Reads a load's files through one io_uring ring, driven by one thread (Linux): it writes an open for each of up to
/// <see cref="Depth"/> files, and as each open completes it asks the descriptor for the file's size (one <c>statx</c>),
/// takes the bytes from the budget and writes the read and then the close. The kernel runs them all at once, so the
/// device sees a deep queue without a thread per read; until one of its reads waits for the device, a ring keeps only
/// a few files open (<see cref="ReadPlan.CachedDepth"/>), so that cached files reuse the blocks the consumer returns. Cached
/// data is copied during the submitting system call, on the driving thread: a load gets a ring per core for that (see
/// <see cref="LoadReaders"/>). A file the ring should not read (empty or pseudo files, large files with their own
/// strategies) or a read the kernel could not do is read the ordinary way. Not thread-safe: the consumer's thread
/// drives the first ring (<see cref="Drive"/>), a reader thread each other one (<see cref="Run"/>); <see cref="Limit"/>
/// and <see cref="StopClaiming"/> are for any thread.
/// </summary>
internal sealed unsafe partial class RingReader : ConsumerThreadReader
{
    private readonly LoadContext _context;
    private readonly DeliveryChannel.DeliveryWriter _delivery;
    private readonly IoUring _ring;
    private readonly RingSlots _slots;
    private readonly bool _clearNonBlocking;
    private int _inKernel;
    private int _closesInKernel;
    private volatile int _depth;
    private volatile bool _claiming = true;
    private readonly int _cachedDepth;
    private bool _waitedForDevice;
    private int _readsUnsubmitted;
    private int _readsInKernel;
    private bool _parallelismCounted;
    private SettleAt _settle;
    private Action? _settleStorage;
    private bool _disposing;
    private bool _disposed;

    private RingReader(LoadContext context, DeliveryChannel.DeliveryWriter delivery, IoUring ring, int depth, int cachedDepth)
    {
        _cachedDepth = cachedDepth;
        _context = context;
        _delivery = delivery;
        _ring = ring;
        _depth = depth;
        _slots = new RingSlots(depth);

        // The open's O_NONBLOCK is cleared once the file is known regular, where the kernel would not let its read wait.
        _clearNonBlocking = ring.NonBlockingReadsMayNotWait || context.Hooks.SimulateKernelBefore515;
        _parallelismCounted = context.Instruments.ParallelismChanged(depth);
    }

    /// <summary>Files read at once.</summary>
    public int Depth => _depth;

    /// <summary>Whether the kernel has posted results not yet handled (a read of shared memory, no system call).</summary>
    public override bool HasResults => !_disposed && _ring.TryPeek(out _, out _);

    /// <summary>Files read at once now: a few (<see cref="ReadPlan.CachedDepth"/>) until a read waits for the device.</summary>
    private int ReadsAllowed => _waitedForDevice ? _depth : Math.Min(_depth, _cachedDepth);

    /// <summary>Slots holding a file: opening, waiting for the budget, or reading.</summary>
    private int InUse => _slots.InUse;

    /// <summary>A reader for a load, or <see langword="null"/> with the reason where the kernel offers no ring.</summary>
    /// <param name="context">The load.</param>
    /// <param name="delivery">Where the files read go.</param>
    /// <param name="depth">Files read at once once a read waits for the device.</param>
    /// <param name="cachedDepth">Files read at once before (<see cref="ReadPlan.CachedDepth"/> or <see cref="ReadPlan.CachedDepthAlone"/>).</param>
    /// <param name="refusal">Why the kernel offers no ring.</param>
    public static RingReader? TryCreate(LoadContext context, DeliveryChannel.DeliveryWriter delivery, int depth, int cachedDepth, out string? refusal)
    {
        if (context.Hooks.SimulateRingRefusal)
        {
            refusal = "refused for a test";
            return null;
        }

        // An open or a read, and a close, per file can be waiting at once. Sized for the deepest ring a load makes by
        // default, so that any later load can take it over (IoUring.Rent).
        IoUring? ring = IoUring.Rent((uint)(2 * Math.Max(depth, ReadPlan.MaxRingDepth)), out refusal);
        return ring is null ? null : new RingReader(context, delivery, ring, depth, cachedDepth);
    }

    /// <summary>Lowers the files read at once (a spinning disk wants few); files already started finish. Any thread.</summary>
    public void Limit(int depth)
    {
        lock (_slots)
        {
            int previous = _depth;
            _depth = Math.Min(previous, depth);
            if (_parallelismCounted)
            {
                _context.Instruments.ParallelismChanged(_depth - previous);
            }
        }
    }

    /// <summary>Starts no more files: the pipeline takes the rest, or the load stops. Any thread.</summary>
    public void StopClaiming() => _claiming = false;

    /// <summary>
    /// Reaps what the kernel finished, starts what the budget and the depth allow, submits, and with
    /// <paramref name="wait"/> sleeps in the kernel until something finishes when nothing did yet.
    /// </summary>
    /// <returns>Whether files were published or are in the kernel: <see langword="false"/> when the ring has nothing to do.</returns>
    public override bool Drive(bool wait)
    {
        if (_disposed)
        {
            return false;
        }

        int done = Reap() + StartWaitingReads() + Refill();

        // Results can call for more requests (a read once its open is done, an open once a file is done): submitted at
        // once, so that the kernel is never idle while this thread does something else. Cached files complete during
        // the submission itself; only when nothing did and requests remain does the thread wait.
        bool waited = false;
        while (_ring.Unsubmitted > 0 || (wait && !waited && done == 0 && _inKernel > 0))
        {
            bool block = _ring.Unsubmitted == 0;
            if (block && !_waitedForDevice)
            {
                // Nothing finished during the submissions (opens can wait for the device too): read at full depth.
                ReadAtFullDepth();
                done += Refill();
                continue;
            }

            if (block)
            {
                // Time this thread would spend waiting anyway: it starts the metrics' creation (no-op once started) and,
                // the first time, the storage's description, which only a read that waits for the device calls for.
                _context.Instruments.RequestCreation();
                SettleStorageOnce();
            }

            Submit(block);
            waited |= block;
            done += Reap();
            if (_readsInKernel > 0 && !_waitedForDevice)
            {
                // A cached file is copied during the submission of its read: one still in the kernel after it waits
                // for the device.
                ReadAtFullDepth();
            }

            done += Refill();
        }

        return done > 0 || _inKernel > 0;
    }

    /// <summary>
    /// Drives the ring on a reader thread until no file is left for it, waiting in the kernel for its reads and, when it
    /// has nothing there, for the budget or a delivery slot, as the consumer frees them. Never throws.
    /// </summary>
    public void Run() => RunOnReaderThread();

    /// <summary>
    /// Calls <paramref name="settleStorage"/> (which describes the load's storage) the first time this ring waits for
    /// the kernel: on this thread, or on a reader thread of its own when the consumer drives this ring. A load whose
    /// files are all cached never waits, and describes nothing.
    /// </summary>
    public void SettleStorageAtFirstWait(bool onThisThread, Action settleStorage)
    {
        _settle = onThisThread ? SettleAt.FirstWaitHere : SettleAt.FirstWaitElsewhere;
        _settleStorage = settleStorage;
    }

    /// <summary>
    /// Stops, waits for everything in the kernel (it writes into the buffers until it completes, and closes
    /// descriptors), returns every buffer and descriptor it still holds, and gives the ring back: kept open for the
    /// process's next load when drained (<see cref="IoUring.Return"/>), closed otherwise.
    /// </summary>
    public override void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _claiming = false;
        _disposing = true;
        try
        {
            while (_inKernel + _closesInKernel > 0)
            {
                if (_ring.Unsubmitted > 0 || !_ring.TryPeek(out _, out _))
                {
                    _ring.Submit(wait: true);
                }

                Reap();
            }
        }
        finally
        {
            _disposed = true;
            foreach (RingSlot slot in _slots.All)
            {
                if (slot.State == RingSlotState.WaitingForBudget)
                {
                    slot.CloseDescriptor();
                    Finish(slot);
                }
            }

            // Drained (the loop above ended rather than threw): the ring can serve the process's next load.
            if (_inKernel + _closesInKernel == 0)
            {
                _ring.Return();
            }
            else
            {
                _ring.Dispose();
            }

            _slots.Dispose();
            lock (_slots)
            {
                if (_parallelismCounted)
                {
                    _context.Instruments.ParallelismChanged(-_depth);
                    _parallelismCounted = false;
                }
            }
        }
    }

    private void RunOnReaderThread()
    {
        try
        {
            while (Drive(wait: true) || WaitForRoom())
            {
            }
        }
        catch (Exception ex)
        {
            // Every file's own failure is published; this is the ring failing: stop the load visibly.
            _delivery.Fail(ex);
        }
        finally
        {
            try
            {
                Dispose();
            }
            finally
            {
                _context.Lifetime.ReaderExited();
            }
        }
    }

    /// <summary>
    /// With nothing in the kernel, waits for what holds the ring back: the budget for a file it opened, or a delivery
    /// slot for the next file. Returns <see langword="false"/> when no file is left for it or the load stops.
    /// </summary>
    private bool WaitForRoom()
    {
        foreach (RingSlot slot in _slots.All)
        {
            if (slot.State == RingSlotState.WaitingForBudget)
            {
                try
                {
                    _context.Budget.Acquire(slot.Charge, slot.Index, _context.StopToken);
                }
                catch (OperationCanceledException)
                {
                    return false;
                }

                _ = StartRead(slot);
                return true;
            }
        }

        // Woken once room for a batch of files is free, not once per file the consumer takes: a full window would
        // otherwise hand this thread and the consumer's a core back and forth per file.
        return CanClaim && _delivery.WaitForRoom(Math.Max(1, Math.Min(ReadsAllowed / 2, _context.Files.Left)));
    }

    /// <summary>
    /// From the first read that waits for the device on: the ring keeps its whole depth in the kernel, and the load its
    /// whole delivery window, so that the device sees a deep queue while the consumer works.
    /// </summary>
    private void ReadAtFullDepth()
    {
        _waitedForDevice = true;
        _delivery.WidenWindow();
    }

    private void Submit(bool wait)
    {
        _ring.Submit(wait);
        if (_ring.Unsubmitted == 0)
        {
            _readsInKernel += _readsUnsubmitted;
            _readsUnsubmitted = 0;
        }
    }

    // A ring stops claiming before the pipeline takes the rest of the set (StopClaiming).
    private bool CanClaim => _claiming && !_context.StopToken.IsCancellationRequested;

    private void SettleStorageOnce()
    {
        SettleAt settle = _settle;
        _settle = SettleAt.Never;
        if (settle == SettleAt.FirstWaitHere)
        {
            _settleStorage!();
        }
        else if (settle == SettleAt.FirstWaitElsewhere)
        {
            // Not on the consumer's thread: describing a device costs a new process milliseconds of first-time code.
            ReaderThreadPool.Shared.Run(static settle => ((Action)settle!)(), _settleStorage);
        }
    }

    /// <summary>Claims files while slots are free and writes an open for each; returns how many files that published.</summary>
    private int Refill()
    {
        int published = 0;
        while (InUse < ReadsAllowed && CanClaim && !_delivery.ReadAheadFull && _delivery.TryClaim(wait: false, out int index))
        {
            published += Open(index);
        }

        return published;
    }

    /// <summary>
    /// Writes the open of the file at <paramref name="index"/>, or opens it here when the ring cannot; returns how
    /// many files that published.
    /// </summary>
    private int Open(int index)
    {
        string path = _context.Files.PathAt(index);
        RingSlot slot = _slots.Rent();
        slot.Index = index;
        slot.Started = _context.Time.GetTimestamp();
        slot.Counted = _context.Instruments.ReadStarted();
        _context.RecordConcurrency(InUse);
        try
        {
            _context.Files.CheckName(index, path);

            // A file of a folder the walk kept open is opened by its name there: no lookup of the folders above it.
            int folder = _context.Files.FolderOf(index);
            byte* pathBytes = _slots.PathOf(slot, path, OpenFolders.NameStart(path, folder));
            if (pathBytes is null || !_ring.TryOpen(folder, pathBytes, ReadableFile.ReadFlags, slot.UserData(RingOperation.Open)))
            {
                // A path the ring cannot take (too long, or with a NUL) or a full queue: the ordinary open says what
                // is wrong with the path.
                if (ReadableFile.TryOpen(path, folder, out long length, out Exception? failure) is not { } handle)
                {
                    Fail(slot, failure!);
                    return 1;
                }

                return Opened(slot, (int)handle.DangerousGetHandle(), length, handle, empty: false);
            }

            slot.State = RingSlotState.Opening;
            _inKernel++;
            return 0;
        }
        catch (Exception ex)
        {
            Fail(slot, ex);
            return 1;
        }
    }

    private enum SettleAt
    {
        Never,
        FirstWaitHere,
        FirstWaitElsewhere,
    }
}
