using System.Runtime.InteropServices;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Engine;

// What the ring does with each result the kernel posts: an open's (the file's size, its bytes from the budget, its
// read), a read's (a short read finished here, the close, the file published), and a file that fails.
internal sealed unsafe partial class RingReader
{
    /// <summary>Handles every result the kernel has posted; returns how many files were published.</summary>
    private int Reap()
    {
        int published = 0;
        while (_ring.TryPeek(out ulong userData, out int result))
        {
            _ring.Advance();
            switch ((RingOperation)(userData & 0xFF))
            {
                case RingOperation.Close:
                    // A close's result is not looked at: a descriptor that was only read from has nothing to lose on close.
                    _closesInKernel--;
                    break;
                case RingOperation.Open:
                    _inKernel--;
                    published += OpenCompleted(_slots.For(userData), result);
                    break;
                default:
                    _inKernel--;
                    published += ReadCompleted(_slots.For(userData), result);
                    break;
            }
        }

        return published;
    }

    /// <summary>
    /// An open completed: checks what was opened and starts its read when the budget allows. A file that cannot be read
    /// (missing, refused, not a regular file) fails with an exception made, not thrown: a load of many such files pays
    /// no exception dispatch for each, and a new process not the first one's setup.
    /// </summary>
    private int OpenCompleted(RingSlot slot, int result)
    {
        string path = _context.Files.PathAt(slot.Index);
        Exception? failure;
        try
        {
            if (result >= 0)
            {
                slot.Fd = result;
                FileStatus status = FileStatus.GetLinux(result, path);
                if (status.Kind == FileKind.Regular)
                {
                    bool empty = status.Length == 0 && EmptyFiles.IsEmptyLinux(result, status.DeviceId);
                    return Opened(slot, result, status.Length, handle: null, empty);
                }

                failure = ReadableFile.NotRegularFile(path, status.Kind);
            }
            else if (!IoUring.NotDone(result))
            {
                failure = NativeErrors.ForPath(-result, path, "open");
            }
            else if (ReadableFile.TryOpen(path, _context.Files.FolderOf(slot.Index), out long length, out failure) is { } handle)
            {
                // Not done by the kernel (interrupted, or the thread that asked has exited): the ordinary open.
                return Opened(slot, (int)handle.DangerousGetHandle(), length, handle, empty: false);
            }
        }
        catch (Exception ex)
        {
            failure = ex;
        }

        slot.CloseDescriptor();
        Fail(slot, failure!);
        return 1;
    }

    /// <summary>
    /// A regular file is open (by the ring, or by <paramref name="handle"/> the ordinary way, whose descriptor the slot
    /// takes over): its read starts when its bytes fit the budget. An <paramref name="empty"/> one (<see cref="EmptyFiles"/>)
    /// is published at once, with nothing to read or charge.
    /// </summary>
    /// <returns>How many files that published (1 when it was read here, 0 when its read is in the kernel or waits).</returns>
    private int Opened(RingSlot slot, int fd, long length, SafeFileHandle? handle, bool empty)
    {
        handle?.SetHandleAsInvalid();
        slot.Fd = fd;
        if (_disposing)
        {
            // The ring is closing: opens still completing are closed, not read.
            slot.CloseDescriptor();
            Finish(slot);
            return 0;
        }

        if (_clearNonBlocking && length > 0)
        {
            IoUring.ClearNonBlocking(fd);
        }

        slot.Length = length;
        slot.Charge = _context.ReadSettings.BudgetCharge(length);
        if (empty)
        {
            return Publish(slot, EmptyContents.Instance);
        }

        slot.State = RingSlotState.WaitingForBudget;
        return TryStartRead(slot);
    }

    /// <summary>Starts the reads of opened files whose bytes now fit the budget; returns how many files that published.</summary>
    private int StartWaitingReads()
    {
        int published = 0;
        foreach (RingSlot slot in _slots.All)
        {
            if (slot.State == RingSlotState.WaitingForBudget)
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
    private int TryStartRead(RingSlot slot) => _context.Budget.TryAcquire(slot.Charge, slot.Index) ? StartRead(slot) : 0;

    /// <summary>Reads a file whose charge is taken: in the ring, or elsewhere where the ring should not.</summary>
    /// <returns>How many files that published (1 when it was read or failed here, 0 when its read is in the kernel or elsewhere).</returns>
    private int StartRead(RingSlot slot)
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
            while (!_ring.TryRead(slot.Fd, (byte*)slot.Pin.Pointer, (uint)length, 0, slot.UserData(RingOperation.Read)))
            {
                // Closes written since the last submission fill the queue: they go first.
                Submit(wait: false);
            }
        }
        catch (Exception ex)
        {
            // Nothing was submitted for this file: its buffer and charge go back, and only it fails.
            slot.ReleaseContents();
            return FailRead(slot, ex);
        }

        slot.State = RingSlotState.Reading;
        _inKernel++;
        _readsUnsubmitted++;
        return 0;
    }

    // Out of line: with the default buffers a load never takes an array, nor sets up a pool for one.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static PooledContents RentArray(ReadSettings settings, long length) => new(settings.Pool.Rent((int)length), (int)length, settings.Pool);

    /// <summary>A read completed: publishes the file, finishing a short read on this thread.</summary>
    private int ReadCompleted(RingSlot slot, int result)
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
        if (_context.Hooks.SimulateKernelBefore515 && result >= 0 && IoUring.IsNonBlocking(slot.Fd))
        {
            result = -Interop.EAGAIN;
        }

        try
        {
            if (result < 0 && !IoUring.NotDone(result))
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
            return FailRead(slot, ex);
        }

        return Publish(slot, contents);
    }

    /// <summary>A file is read: its descriptor is closed (in the ring where it can be) and the file published; returns 1.</summary>
    private int Publish(RingSlot slot, FileContents contents)
    {
        if (_ring.TryClose(slot.Fd, (ulong)RingOperation.Close, _context.Hooks.DeferRingCloses))
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

    /// <summary>A file whose bytes were charged fails: the charge goes back, the descriptor is closed; returns 1.</summary>
    private int FailRead(RingSlot slot, Exception ex)
    {
        _context.Budget.Release(slot.Charge);
        slot.CloseDescriptor();
        Fail(slot, ex);
        return 1;
    }

    private void Fail(RingSlot slot, Exception ex)
    {
        _delivery.PublishFailure(slot.Index, ex);
        Finish(slot);
    }

    private void Finish(RingSlot slot)
    {
        _context.Instruments.ReadEnded(slot.Counted);
        _slots.Return(slot);
    }
}
