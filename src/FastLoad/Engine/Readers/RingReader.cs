using System.Buffers;
using System.Runtime.InteropServices;
using System.Text;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Engine;

/// <summary>
/// Reads a load's files through one io_uring ring, driven by one thread (Linux): it writes an open for each of up to
/// <see cref="Depth"/> files, and as each open completes it asks the descriptor for the file's size (one <c>statx</c>),
/// takes the bytes from the budget and writes the read and then the close. The kernel runs them all at once, so the
/// device sees a deep queue without a thread per read; until one of its reads waits for the device, a ring keeps only
/// a few files open (<see cref="CachedDepth"/>), so that cached files reuse the blocks the consumer returns. Cached
/// data is copied during the submitting system call, on the driving thread: a load gets a ring per core for that (see
/// <see cref="LoadReaders"/>). A file the ring should not read (empty or pseudo files, large files with their own
/// strategies) or a read the kernel could not do is read the ordinary way. Not thread-safe: the consumer's thread
/// drives the first ring (<see cref="Drive"/>), a reader thread each other one (<see cref="Run"/>); <see cref="Limit"/>
/// and <see cref="StopClaiming"/> are for any thread.
/// </summary>
internal sealed unsafe class RingReader : ConsumerThreadReader
{
    /// <summary>Files in flight at most over a load's rings: deep enough for a native reader to reach an SSD's limit (docs/startup.md).</summary>
    internal const int MaxDepth = 128;

    /// <summary>A set gets one ring per this many files, up to one per core: below it, a thread costs more than it reads.</summary>
    internal const int MinFilesPerRing = 128;

    /// <summary>A ring reads at least this many files at once: shallower, a submission carries too few requests to pay.</summary>
    internal const int MinDepthPerRing = 8;

    /// <summary>
    /// Files a ring keeps open at once until it first waits for the device. Cached files are copied during the
    /// submission whatever the depth, and a few at a time let the consumer hand back blocks that the next files are
    /// read into: fresh memory costs a page fault a page, more than copying a small file.
    /// </summary>
    internal const int CachedDepth = 16;

    /// <summary>
    /// <see cref="CachedDepth"/> for the consumer's ring when it reads a load alone: it reads between the files it hands
    /// over, and smaller batches let more files reuse blocks. Helper rings need the larger batches to stay ahead of the
    /// consumer without being woken every few files.
    /// </summary>
    internal const int CachedDepthAlone = 8;

    // Room for a path and its NUL in each slot; a longer path (rare: PATH_MAX is 4096) is opened the ordinary way.
    private const int PathCapacity = 1024;

    private const ulong OperationOpen = 1;
    private const ulong OperationRead = 2;
    private const ulong OperationClose = 3;

    private readonly LoadContext _context;
    private readonly DeliveryChannel.DeliveryWriter _delivery;
    private readonly LoadReaders _readers;
    private readonly IoUring _ring;
    private readonly Slot[] _slots;
    private readonly int[] _free;
    private readonly NativeContents _paths;
    private readonly bool _clearNonBlocking;
    private int _freeCount;
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
    private bool _describesStorage;
    private bool _disposing;
    private bool _disposed;

    private RingReader(LoadContext context, DeliveryChannel.DeliveryWriter delivery, LoadReaders readers, IoUring ring, int depth, int cachedDepth)
    {
        _cachedDepth = cachedDepth;
        _context = context;
        _delivery = delivery;
        _readers = readers;
        _ring = ring;
        _depth = depth;
        _slots = new Slot[depth];
        _free = new int[depth];
        for (int slot = depth - 1; slot >= 0; slot--)
        {
            _slots[slot] = new Slot(slot);
            _free[_freeCount++] = slot;
        }

        // Native memory that stays put until the reader is disposed, after its last open completed. From the pool, not
        // fresh: the room spans a page for every four slots, and a page written for the first time costs a fault, which
        // every load would otherwise pay again.
        _paths = NativeBlockPool.Rent(depth * PathCapacity);
        // Before Linux 5.15 io_uring treats a file opened O_NONBLOCK as one whose reads must not wait, so a cold read
        // comes back EAGAIN; the flag (which keeps the open of a FIFO from blocking) is cleared once the file is known
        // regular. No flag marks 5.15 itself: kernels without 5.17's are treated as older (an fcntl more per file).
        _clearNonBlocking = (ring.Features & Interop.IoUringFeatureCqeSkip) == 0 || context.Hooks.SimulateKernelBefore515;
        _parallelismCounted = context.Instruments.ParallelismChanged(depth);
    }

    /// <summary>Files read at once.</summary>
    public int Depth => _depth;

    /// <summary>Whether the kernel has posted results not yet handled (a read of shared memory, no system call).</summary>
    public override bool HasResults => !_disposed && _ring.TryPeek(out _, out _);

    /// <summary>Files read at once now: a few (<see cref="CachedDepth"/>) until a read waits for the device.</summary>
    private int ReadsAllowed => _waitedForDevice ? _depth : Math.Min(_depth, _cachedDepth);

    /// <summary>Slots holding a file: opening, waiting for the budget, or reading.</summary>
    private int InUse => _slots.Length - _freeCount;

    /// <summary>How many files a load of <paramref name="fileCount"/> files reads at once over all its rings.</summary>
    public static int DepthFor(FileLoaderOptions options, StorageKind kind, int fileCount)
    {
        int limit = options.MaxDegreeOfParallelism ?? (kind == StorageKind.Rotational ? ParallelismPolicy.RotationalShallowDepth : MaxDepth);
        return Math.Max(1, Math.Min(fileCount, limit));
    }

    /// <summary>How many rings read a load of <paramref name="fileCount"/> files: one per <see cref="MinFilesPerRing"/>, up to one per core.</summary>
    public static int RingsFor(FileLoaderOptions options, StorageKind kind, int fileCount)
    {
        // A spinning disk's few reads at once, and input order's window, are kept simplest on one ring.
        if (kind == StorageKind.Rotational || options.Ordering == LoadOrdering.Input)
        {
            return 1;
        }

        int rings = Math.Min(Environment.ProcessorCount, fileCount / MinFilesPerRing);
        return Math.Clamp(rings, 1, Math.Max(1, DepthFor(options, kind, fileCount) / MinDepthPerRing));
    }

    /// <summary>The depth of ring <paramref name="ring"/> of <paramref name="rings"/> sharing <paramref name="total"/> reads at once.</summary>
    public static int ShareOf(int total, int rings, int ring) => (total / rings) + (ring < total % rings ? 1 : 0);

    /// <summary>A reader for a load, or <see langword="null"/> with the reason where the kernel offers no ring.</summary>
    /// <param name="context">The load.</param>
    /// <param name="delivery">Where the files read go.</param>
    /// <param name="readers">The load's readers.</param>
    /// <param name="depth">Files read at once once a read waits for the device.</param>
    /// <param name="cachedDepth">Files read at once before (<see cref="CachedDepth"/> or <see cref="CachedDepthAlone"/>).</param>
    /// <param name="refusal">Why the kernel offers no ring.</param>
    public static RingReader? TryCreate(LoadContext context, DeliveryChannel.DeliveryWriter delivery, LoadReaders readers, int depth, int cachedDepth, out string? refusal)
    {
        if (context.Hooks.SimulateRingRefusal)
        {
            refusal = "refused for a test";
            return null;
        }

        // An open or a read, and a close, per file can be waiting at once. Sized for the deepest ring a load makes by
        // default, so that any later load can take it over (IoUring.Rent).
        IoUring? ring = IoUring.Rent((uint)(2 * Math.Max(depth, MaxDepth)), out refusal);
        return ring is null ? null : new RingReader(context, delivery, readers, ring, depth, cachedDepth);
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
            if (block)
            {
                // Time this thread would spend waiting anyway: it starts the metrics' creation (no-op once started) and,
                // the first time, the storage's description, which only a read that waits for the device calls for.
                _context.Instruments.RequestCreation();
                SettleStorageOnce();
            }

            if (block && !_waitedForDevice && TryReadAtFullDepth())
            {
                // Nothing finished during the submissions (opens can wait for the device too): read at full depth.
                done += Refill();
                continue;
            }

            Submit(block);
            waited |= block;
            done += Reap();
            if (_readsInKernel > 0 && !_waitedForDevice)
            {
                // A cached file is copied during the submission of its read: one still in the kernel after it waits
                // for the device.
                TryReadAtFullDepth();
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
    /// Has the load's storage described (<see cref="LoadReaders.SettleRingStorage"/>) the first time this ring waits
    /// for the kernel: on this thread, or on a reader thread of its own when the consumer drives this ring. A load
    /// whose files are all cached never waits, and describes nothing.
    /// </summary>
    public void SettleStorageAtFirstWait(bool onThisThread)
    {
        _settle = onThisThread ? SettleAt.FirstWaitHere : SettleAt.FirstWaitElsewhere;
        _describesStorage = true;
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
            foreach (Slot slot in _slots)
            {
                if (slot.State == SlotState.WaitingForBudget)
                {
                    CloseDescriptor(slot);
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

            _paths.Dispose();
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
        foreach (Slot slot in _slots)
        {
            if (slot.State == SlotState.WaitingForBudget)
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
    /// <remarks>
    /// Not before the storage is described, where it is: on a spinning disk the rest of the set goes to the pipeline's
    /// lane in physical order, and a full ring would first have read a hundred files in the set's order, each a seek.
    /// </remarks>
    /// <returns>Whether the ring reads at full depth now.</returns>
    private bool TryReadAtFullDepth()
    {
        if (_describesStorage && !_readers.RingStorageSettled)
        {
            return false;
        }

        _waitedForDevice = true;
        _delivery.WidenWindow();
        return true;
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

    private bool CanClaim => _claiming && !_context.StopToken.IsCancellationRequested && !_readers.Retired;

    private void SettleStorageOnce()
    {
        SettleAt settle = _settle;
        _settle = SettleAt.Never;
        if (settle == SettleAt.FirstWaitHere)
        {
            _readers.SettleRingStorage();
        }
        else if (settle == SettleAt.FirstWaitElsewhere)
        {
            // Not on the consumer's thread: describing a device costs a new process milliseconds of first-time code.
            ReaderThreadPool.Shared.Run(static readers => ((LoadReaders)readers!).SettleRingStorage(), _readers);
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
        int number = _free[--_freeCount];
        Slot slot = _slots[number];
        slot.Index = index;
        slot.Started = _context.Time.GetTimestamp();
        slot.Counted = _context.Instruments.ReadStarted();
        _context.RecordConcurrency(InUse);
        try
        {
            _context.Files.CheckName(index, path);
            byte* pathBytes = _paths.Pointer + ((long)number * PathCapacity);
            if (!TryEncode(path, pathBytes) || !_ring.TryOpen(pathBytes, ReadableFile.ReadFlags, UserData(number, OperationOpen)))
            {
                // A path the ring cannot take (too long, or with a NUL) or a full queue: the ordinary open says what
                // is wrong with the path.
                SafeFileHandle handle = ReadableFile.Open(path, out long length);
                return Opened(slot, (int)handle.DangerousGetHandle(), length, handle);
            }

            slot.State = SlotState.Opening;
            _inKernel++;
            return 0;
        }
        catch (Exception ex)
        {
            Fail(slot, ex);
            return 1;
        }
    }

    /// <summary>Handles every result the kernel has posted; returns how many files were published.</summary>
    private int Reap()
    {
        int published = 0;
        while (_ring.TryPeek(out ulong userData, out int result))
        {
            _ring.Advance();
            switch (userData & 0xFF)
            {
                case OperationClose:
                    // A close's result is not looked at: a descriptor that was only read from has nothing to lose on close.
                    _closesInKernel--;
                    break;
                case OperationOpen:
                    _inKernel--;
                    published += OpenCompleted(_slots[(int)(userData >> 8)], result);
                    break;
                default:
                    _inKernel--;
                    published += ReadCompleted(_slots[(int)(userData >> 8)], result);
                    break;
            }
        }

        return published;
    }

    /// <summary>An open completed: checks what was opened and starts its read when the budget allows.</summary>
    private int OpenCompleted(Slot slot, int result)
    {
        string path = _context.Files.PathAt(slot.Index);
        try
        {
            if (result >= 0)
            {
                slot.Fd = result;
                FileStatus status = FileStatus.GetLinux(result, path);
                return Opened(slot, result, status.Kind == FileKind.Regular ? status.Length : throw ReadableFile.NotRegularFile(path, status.Kind), handle: null);
            }

            if (-result is not (Interop.EINTR or Interop.EAGAIN or Interop.ECANCELED))
            {
                throw NativeErrors.ForPath(-result, path, "open");
            }

            // Not done by the kernel (interrupted, or the thread that asked has exited): the ordinary open.
            SafeFileHandle handle = ReadableFile.Open(path, out long length);
            return Opened(slot, (int)handle.DangerousGetHandle(), length, handle);
        }
        catch (Exception ex)
        {
            CloseDescriptor(slot);
            Fail(slot, ex);
            return 1;
        }
    }

    /// <summary>
    /// A regular file is open (by the ring, or by <paramref name="handle"/> the ordinary way, whose descriptor the slot
    /// takes over): its read starts when its bytes fit the budget.
    /// </summary>
    /// <returns>How many files that published (1 when it was read here, 0 when its read is in the kernel or waits).</returns>
    private int Opened(Slot slot, int fd, long length, SafeFileHandle? handle)
    {
        handle?.SetHandleAsInvalid();
        slot.Fd = fd;
        if (_disposing)
        {
            // The ring is closing: opens still completing are closed, not read.
            CloseDescriptor(slot);
            Finish(slot);
            return 0;
        }

        if (_clearNonBlocking && length > 0)
        {
            ClearNonBlocking(fd);
        }

        slot.Length = length;
        slot.Charge = _context.ReadSettings.BudgetCharge(length);
        slot.State = SlotState.WaitingForBudget;
        return TryStartRead(slot);
    }

    /// <summary>Starts the reads of opened files whose bytes now fit the budget; returns how many files that published.</summary>
    private int StartWaitingReads()
    {
        int published = 0;
        foreach (Slot slot in _slots)
        {
            if (slot.State == SlotState.WaitingForBudget)
            {
                published += TryStartRead(slot);
            }
        }

        return published;
    }

    /// <summary>
    /// Takes the file's bytes from the budget without waiting (on the consumer's thread only this thread frees them),
    /// and starts its read; returns how many files that published.
    /// </summary>
    private int TryStartRead(Slot slot) => _context.Budget.TryAcquire(slot.Charge, slot.Index) ? StartRead(slot) : 0;

    /// <summary>Reads a file whose charge is taken: in the ring, or elsewhere where the ring should not.</summary>
    /// <returns>How many files that published (1 when it was read or failed here, 0 when its read is in the kernel or elsewhere).</returns>
    private int StartRead(Slot slot)
    {
        ReadSettings settings = _context.ReadSettings;
        long length = slot.Length;
        if (length == 0 || settings.IsLarge(length))
        {
            var handle = new SafeFileHandle(slot.Fd, ownsHandle: true);
            int index = slot.Index;
            long charge = slot.Charge;
            slot.Fd = -1;
            Finish(slot);
            // A large file's strategies (several reads in flight, unbuffered, mapped) run on a reader thread: here they
            // would hold up every other file of the ring until the large one is in. So do pseudo files (they report 0
            // and have content), which are charged as they are read and may wait for the budget.
            BlockingReads.ReadOpenedOnReaderThread(_context, _delivery, index, handle, length, charge);
            return 0;
        }

        try
        {
            FileContents contents = settings.UsesNativeBlock(length) ? NativeBlockPool.Rent(length) : RentArray(settings, length);
            slot.Contents = contents;
            slot.Pin = contents.Pin();
            while (!_ring.TryRead(slot.Fd, (byte*)slot.Pin.Pointer, (uint)length, 0, UserData(slot.Number, OperationRead)))
            {
                // Closes written since the last submission fill the queue: they go first.
                Submit(wait: false);
            }
        }
        catch (Exception ex)
        {
            // Nothing was submitted for this file: its buffer and charge go back, and only it fails.
            ReleaseContents(slot);
            _context.Budget.Release(slot.Charge);
            CloseDescriptor(slot);
            Fail(slot, ex);
            return 1;
        }

        slot.State = SlotState.Reading;
        _inKernel++;
        _readsUnsubmitted++;
        return 0;
    }

    // Out of line: with the default buffers a load never takes an array, nor sets up a pool for one.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static PooledContents RentArray(ReadSettings settings, long length) => new(settings.Pool.Rent((int)length), (int)length, settings.Pool);

    /// <summary>A read completed: publishes the file, finishing a short read on this thread.</summary>
    private int ReadCompleted(Slot slot, int result)
    {
        // Counts for telling cached files from the device's; a submission cut short leaves them rough, not wrong.
        if (_readsInKernel > 0)
        {
            _readsInKernel--;
        }
        else if (_readsUnsubmitted > 0)
        {
            _readsUnsubmitted--;
        }

        FileContents contents = slot.Contents!;
        slot.Pin.Dispose();
        slot.Pin = default;
        slot.Contents = null;
        string path = _context.Files.PathAt(slot.Index);
        if (_context.Hooks.SimulateKernelBefore515 && result >= 0 && IsNonBlocking(slot.Fd))
        {
            result = -Interop.EAGAIN;
        }

        try
        {
            if (result < 0 && -result is not (Interop.EINTR or Interop.EAGAIN or Interop.ECANCELED))
            {
                throw new IOException($"Could not read '{path}' at offset 0: {Marshal.GetPInvokeErrorMessage(-result)}", -result);
            }

            int read = Math.Max(result, 0);
            if (read < slot.Length)
            {
                // Short, or not done by the kernel: the rest the ordinary way; a file that shrank ends where it ends.
                _context.Hooks.RingReadFinishedHere();
                using var handle = new SafeFileHandle(slot.Fd, ownsHandle: false);
                Span<byte> destination = contents.Slice(0, (int)slot.Length);
                while (read < slot.Length && WholeFileReader.ReadAt(handle, path, destination[read..], read) is > 0 and int more)
                {
                    read += more;
                }

                contents.Truncate(read);
            }
        }
        catch (Exception ex)
        {
            contents.Dispose();
            _context.Budget.Release(slot.Charge);
            CloseDescriptor(slot);
            Fail(slot, ex);
            return 1;
        }

        if (_ring.TryClose(slot.Fd, OperationClose, _context.Hooks.DeferRingCloses))
        {
            _closesInKernel++;
        }
        else
        {
            Interop.Close(slot.Fd);
        }

        slot.Fd = -1;
        _delivery.PublishRead(slot.Index, contents, slot.Charge, slot.Started);
        Finish(slot);
        return 1;
    }

    private void Fail(Slot slot, Exception ex)
    {
        _delivery.PublishFailure(slot.Index, ex);
        Finish(slot);
    }

    private static void ReleaseContents(Slot slot)
    {
        slot.Pin.Dispose();
        slot.Pin = default;
        slot.Contents?.Dispose();
        slot.Contents = null;
    }

    private static void ClearNonBlocking(int fd)
    {
        int flags = Interop.Fcntl(fd, Interop.FcntlGetFlags, 0);
        if (flags >= 0 && (flags & Interop.OpenNonBlocking) != 0)
        {
            Interop.Fcntl(fd, Interop.FcntlSetFlags, flags & ~Interop.OpenNonBlocking);
        }
    }

    private static bool IsNonBlocking(int fd) => (Interop.Fcntl(fd, Interop.FcntlGetFlags, 0) & Interop.OpenNonBlocking) != 0;

    private static void CloseDescriptor(Slot slot)
    {
        if (slot.Fd >= 0)
        {
            Interop.Close(slot.Fd);
            slot.Fd = -1;
        }
    }

    private void Finish(Slot slot)
    {
        _context.Instruments.ReadEnded(slot.Counted);
        slot.State = SlotState.Free;
        slot.Fd = -1;
        slot.Index = -1;
        _free[_freeCount++] = slot.Number;
    }

    private static ulong UserData(int slot, ulong operation) => ((ulong)slot << 8) | operation;

    /// <summary>The path as UTF-8 with its NUL; <see langword="false"/> when it does not fit or holds a NUL of its own.</summary>
    /// <remarks>
    /// The span over the string is made from its characters: the string's own conversion to a span names
    /// <c>MemoryExtensions</c>, whose framework assembly a new process would load for it on the first load's path.
    /// </remarks>
    private static bool TryEncode(string path, byte* destination)
    {
        if (path.Contains('\0', StringComparison.Ordinal))
        {
            return false;
        }

        int written;
        fixed (char* chars = path)
        {
            if (!Encoding.UTF8.TryGetBytes(new ReadOnlySpan<char>(chars, path.Length), new Span<byte>(destination, PathCapacity - 1), out written))
            {
                return false;
            }
        }

        destination[written] = 0;
        return true;
    }

    private enum SettleAt
    {
        Never,
        FirstWaitHere,
        FirstWaitElsewhere,
    }

    private enum SlotState
    {
        Free,
        Opening,
        WaitingForBudget,
        Reading,
    }

    private sealed class Slot(int number)
    {
        public readonly int Number = number;
        public int Index = -1;
        public int Fd = -1;
        public long Length;
        public long Charge;
        public long Started;
        public bool Counted;
        public SlotState State;
        public FileContents? Contents;
        public MemoryHandle Pin;
    }
}
