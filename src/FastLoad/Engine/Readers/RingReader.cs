using System.Buffers;
using System.Runtime.InteropServices;
using System.Text;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Engine;

/// <summary>
/// Reads a load's files through an io_uring ring, driven by the thread that takes the files (Linux): it writes an open
/// for each of up to <see cref="Depth"/> files, and as each open completes it asks the descriptor for the file's size
/// (one <c>statx</c>), takes the bytes from the budget and writes the read and then the close. The kernel runs them all
/// at once, so the device sees a deep queue without a thread per read, and nothing is handed between threads. A file
/// the ring should not read (empty or pseudo files, large files with their own strategies) or a read the kernel could
/// not do is read on this thread the ordinary way. Not thread-safe: only the consumer's thread calls it.
/// </summary>
internal sealed unsafe class RingReader
{
    /// <summary>Files in flight at most: deep enough for a native reader to reach an SSD's limit (docs/startup.md).</summary>
    internal const int MaxDepth = 128;

    // Room for a path and its NUL in each slot; a longer path (rare: PATH_MAX is 4096) is opened the ordinary way.
    private const int PathCapacity = 1024;

    private const ulong OperationOpen = 1;
    private const ulong OperationRead = 2;

    // A close's result is not looked at: a descriptor that was only read from has nothing to lose on close.
    private const ulong IgnoredResult = 0;

    private readonly LoadRun _run;
    private readonly IoUring _ring;
    private readonly Slot[] _slots;
    private readonly int[] _free;
    private readonly byte* _paths;
    private int _freeCount;
    private int _inKernel;
    private volatile int _depth;
    private volatile bool _claiming = true;
    private bool _parallelismCounted;
    private bool _disposed;

    private RingReader(LoadRun run, IoUring ring, int depth)
    {
        _run = run;
        _ring = ring;
        _depth = depth;
        _slots = new Slot[depth];
        _free = new int[depth];
        for (int slot = depth - 1; slot >= 0; slot--)
        {
            _slots[slot] = new Slot(slot);
            _free[_freeCount++] = slot;
        }

        _paths = (byte*)NativeMemory.Alloc((nuint)depth * PathCapacity);
        _parallelismCounted = run.Instruments.ParallelismChanged(depth);
    }

    /// <summary>Files read at once.</summary>
    public int Depth => _depth;

    /// <summary>Slots holding a file: opening, waiting for the budget, or reading.</summary>
    private int InUse => _slots.Length - _freeCount;

    /// <summary>How many files a load of <paramref name="fileCount"/> files reads at once through the ring.</summary>
    public static int DepthFor(FileLoaderOptions options, StorageKind kind, int fileCount)
    {
        int limit = options.MaxDegreeOfParallelism ?? (kind == StorageKind.Rotational ? ParallelismPolicy.RotationalSmallFileDepth : MaxDepth);
        return Math.Max(1, Math.Min(fileCount, limit));
    }

    /// <summary>Whether the kernel has posted results not yet handled (a read of shared memory, no system call).</summary>
    public bool HasResults => _ring.TryPeek(out _, out _);

    /// <summary>A reader for <paramref name="run"/>, or <see langword="null"/> with the reason where the kernel offers no ring.</summary>
    public static RingReader? TryCreate(LoadRun run, int depth, out string? refusal)
    {
        if (run.Hooks.SimulateRingRefusal)
        {
            refusal = "refused for a test";
            return null;
        }

        // An open, a read and a close per file can be waiting at once.
        IoUring? ring = IoUring.TryCreate((uint)(2 * depth), out refusal);
        return ring is null ? null : new RingReader(run, ring, depth);
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
                _run.Instruments.ParallelismChanged(_depth - previous);
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
    public bool Pump(bool wait)
    {
        int done = Reap() + StartWaitingReads();
        Refill();

        // Results can call for more requests (a read once its open is done, an open once a file is done): submitted at
        // once, so that the kernel is never idle while this thread does something else.
        bool waited = false;
        while (_ring.Unsubmitted > 0 || (wait && !waited && done == 0 && _inKernel > 0))
        {
            bool block = wait && !waited && done == 0 && _inKernel > 0;
            if (block)
            {
                // Time this thread would spend waiting anyway: it starts the metrics' creation, as reader threads do
                // when they are done (no-op once started).
                _run.Instruments.RequestCreation();
            }

            _ring.Submit(block);
            waited |= block;
            done += Reap();
            Refill();
        }

        return done > 0 || _inKernel > 0;
    }

    /// <summary>
    /// Stops, waits for everything in the kernel (it writes into the buffers until it completes), returns every buffer
    /// and descriptor it still holds, and closes the ring.
    /// </summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _claiming = false;
        try
        {
            while (_inKernel > 0)
            {
                if (_ring.Unsubmitted > 0 || !_ring.TryPeek(out _, out _))
                {
                    _ring.Submit(wait: true);
                }

                Reap();
            }

            // The closes of the last reads.
            if (_ring.Unsubmitted > 0)
            {
                _ring.Submit(wait: false);
            }
        }
        finally
        {
            foreach (Slot slot in _slots)
            {
                if (slot.State == SlotState.WaitingForBudget)
                {
                    Interop.Close(slot.Fd);
                    Finish(slot);
                }
            }

            _ring.Dispose();
            NativeMemory.Free(_paths);
            lock (_slots)
            {
                if (_parallelismCounted)
                {
                    _run.Instruments.ParallelismChanged(-_depth);
                    _parallelismCounted = false;
                }
            }
        }
    }

    /// <summary>Claims files while slots are free and writes an open for each.</summary>
    private void Refill()
    {
        while (_claiming && InUse < _depth && !_run.StopToken.IsCancellationRequested && !_run.DirectReadersRetired)
        {
            if (!_run.TryClaim(wait: false, out int index))
            {
                return;
            }

            string path = _run.PathAt(index);
            int number = _free[--_freeCount];
            Slot slot = _slots[number];
            slot.Index = index;
            slot.Started = _run.Time.GetTimestamp();
            slot.Counted = _run.Instruments.ReadStarted();
            _run.RecordConcurrency(InUse);
            try
            {
                _run.CheckName(index, path);
                byte* pathBytes = _paths + ((long)number * PathCapacity);
                if (!TryEncode(path, pathBytes) || !_ring.TryOpen(pathBytes, ReadableFile.ReadFlags, UserData(number, OperationOpen)))
                {
                    // A path the ring cannot take (too long, or with a NUL): the ordinary open says what is wrong with it.
                    ReadHere(slot, ReadableFile.Open(path, out long length), length);
                    continue;
                }

                slot.State = SlotState.Opening;
                _inKernel++;
            }
            catch (Exception ex)
            {
                Fail(slot, ex);
            }
        }
    }

    /// <summary>Handles every result the kernel has posted; returns how many files were published.</summary>
    private int Reap()
    {
        int published = 0;
        while (_ring.TryPeek(out ulong userData, out int result))
        {
            _ring.Advance();
            if (userData == IgnoredResult)
            {
                continue;
            }

            _inKernel--;
            Slot slot = _slots[(int)(userData >> 8)];
            published += (userData & 0xFF) == OperationOpen ? Opened(slot, result) : Read(slot, result);
        }

        return published;
    }

    /// <summary>An open completed: checks what was opened and starts its read when the budget allows.</summary>
    private int Opened(Slot slot, int result)
    {
        string path = _run.PathAt(slot.Index);
        try
        {
            if (result < 0)
            {
                if (-result is Interop.EINTR or Interop.EAGAIN or Interop.ECANCELED)
                {
                    // Not done by the kernel (interrupted, or the thread that asked has exited): the ordinary open.
                    return ReadHere(slot, ReadableFile.Open(path, out long reopenedLength), reopenedLength);
                }

                throw NativeErrors.ForPath(-result, path, "open");
            }

            slot.Fd = result;
            if (_disposed)
            {
                CloseDescriptor(slot);
                Finish(slot);
                return 0;
            }

            FileStatus status = FileStatus.GetLinux(result, path);
            if (status.Kind != FileKind.Regular)
            {
                throw ReadableFile.NotRegularFile(path, status.Kind);
            }

            slot.Length = status.Length;
            slot.Charge = _run.ReadSettings.BudgetCharge(status.Length);
            slot.State = SlotState.WaitingForBudget;
            return TryStartRead(slot);
        }
        catch (Exception ex)
        {
            CloseDescriptor(slot);
            Fail(slot, ex);
            return 1;
        }
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
    /// Takes the file's bytes from the budget, without waiting (only this thread frees them), and reads it; returns
    /// how many files that published (1 when it read here or failed, 0 when the read is in the kernel or still waits).
    /// </summary>
    private int TryStartRead(Slot slot)
    {
        if (!_run.Budget.TryAcquire(slot.Charge, slot.Index))
        {
            return 0;
        }

        ReadSettings settings = _run.ReadSettings;
        long length = slot.Length;
        if (length == 0 || settings.IsLarge(length))
        {
            var handle = new SafeFileHandle(slot.Fd, ownsHandle: true);
            int index = slot.Index;
            slot.Fd = -1;
            Finish(slot);
            if (length == 0)
            {
                // Pseudo files report 0 and have content: read to the end here, in small steps.
                _run.ReadOpenedAndPublish(index, handle, length, slot.Charge);
                return 1;
            }

            // A large file's strategies (several reads in flight, unbuffered, mapped) run on a reader thread: on this one
            // they would hold up every other file of the ring until the large one is in.
            _run.ReadOpenedOnReaderThread(index, handle, length, slot.Charge);
            return 0;
        }

        try
        {
            FileContents contents = settings.UsesNativeBlock(length)
                ? NativeBlockPool.Rent(length)
                : new PooledContents(settings.Pool.Rent((int)length), (int)length, settings.Pool);
            slot.Contents = contents;
            slot.Pin = MemoryMarshal.AsMemory(contents.Memory).Pin();
        }
        catch (Exception ex)
        {
            _run.Budget.Release(slot.Charge);
            CloseDescriptor(slot);
            Fail(slot, ex);
            return 1;
        }

        while (!_ring.TryRead(slot.Fd, (byte*)slot.Pin.Pointer, (uint)length, 0, UserData(slot.Number, OperationRead)))
        {
            // Closes written since the last submission fill it: they go first.
            _ring.Submit(wait: false);
        }

        slot.State = SlotState.Reading;
        _inKernel++;
        return 0;
    }

    /// <summary>A read completed: publishes the file, finishing a short read on this thread.</summary>
    private int Read(Slot slot, int result)
    {
        slot.Pin.Dispose();
        slot.Pin = default;
        FileContents contents = slot.Contents!;
        slot.Contents = null;
        string path = _run.PathAt(slot.Index);
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
            _run.Budget.Release(slot.Charge);
            CloseDescriptor(slot);
            Fail(slot, ex);
            return 1;
        }

        if (!_ring.TryClose(slot.Fd, IgnoredResult))
        {
            Interop.Close(slot.Fd);
        }

        slot.Fd = -1;
        _run.PublishRead(slot.Index, contents, slot.Charge, slot.Started);
        Finish(slot);
        return 1;
    }

    /// <summary>Reads an opened file on this thread (its bytes are not charged yet); returns how many files that published.</summary>
    private int ReadHere(Slot slot, SafeFileHandle handle, long length)
    {
        long charge = _run.ReadSettings.BudgetCharge(length);
        if (!_run.Budget.TryAcquire(charge, slot.Index))
        {
            // Waits with the others for the budget, as a descriptor of its own.
            slot.Fd = (int)handle.DangerousGetHandle();
            handle.SetHandleAsInvalid();
            slot.Length = length;
            slot.Charge = charge;
            slot.State = SlotState.WaitingForBudget;
            return 0;
        }

        _run.ReadOpenedAndPublish(slot.Index, handle, length, charge);
        Finish(slot);
        return 1;
    }

    private void Fail(Slot slot, Exception ex)
    {
        _run.PublishFailure(slot.Index, ex);
        Finish(slot);
    }

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
        _run.Instruments.ReadEnded(slot.Counted);
        slot.State = SlotState.Free;
        slot.Fd = -1;
        slot.Index = -1;
        _free[_freeCount++] = slot.Number;
    }

    private static ulong UserData(int slot, ulong operation) => ((ulong)slot << 8) | operation;

    /// <summary>The path as UTF-8 with its NUL; <see langword="false"/> when it does not fit or holds a NUL of its own.</summary>
    private static bool TryEncode(string path, byte* destination)
    {
        if (path.Contains('\0', StringComparison.Ordinal) || !Encoding.UTF8.TryGetBytes(path, new Span<byte>(destination, PathCapacity - 1), out int written))
        {
            return false;
        }

        destination[written] = 0;
        return true;
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
