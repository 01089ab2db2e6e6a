using System.Runtime.InteropServices;

namespace FastLoad.FileSystem;

/// <summary>
/// One io_uring instance (Linux 5.6 and later): requests are written into a ring shared with the kernel, submitted
/// together with one system call, and their results read back from a second ring without one. Not thread-safe: one
/// thread at a time submits and reaps. Requests are opens, reads and closes; the kernel runs many at once. Rings are
/// rented and returned (<see cref="Rent"/>, <see cref="Return"/>, thread-safe) so that the process's later loads reuse
/// them, until it has loaded nothing for a few seconds (<see cref="IdleTrimmer"/>).
/// </summary>
internal sealed unsafe class IoUring : IDisposable
{
    private readonly int _fd;
    private readonly byte* _sqRing;
    private readonly nuint _sqRingSize;
    private readonly byte* _cqRing;
    private readonly nuint _cqRingSize;
    private readonly Interop.IoUringSqe* _sqes;
    private readonly nuint _sqesSize;

    private readonly uint* _sqTail;
    private readonly uint* _sqHead;
    private readonly uint _sqMask;
    private readonly uint* _sqArray;
    private readonly uint* _cqHead;
    private readonly uint* _cqTail;
    private readonly uint _cqMask;
    private readonly Interop.IoUringCqe* _cqes;

    // Rings kept open between loads. Creating one (the system call, its probe, three mappings) and closing it (the
    // kernel tears a ring down on a worker, on another core) cost a warm later load 15-19% of its time
    // (docs/startup.md). A load uses at most one ring per core, and at most 16 (ReadPlan's ring depth over its least
    // depth per ring).
    // IORING_FEAT_NATIVE_WORKERS, new in Linux 5.12, the release that stopped charging a ring's memory to
    // RLIMIT_MEMLOCK (often 64 KiB): before it, a kept ring would take from what every process of the user may lock.
    private const uint FeatureNativeWorkers = 1 << 9;

    private static readonly object IdleGate = new();
    private static readonly IoUring?[] Idle = new IoUring?[Math.Min(Environment.ProcessorCount, 16)];
    private static int s_idleCount;

    private uint _localTail;
    private uint _unsubmitted;
    private bool _disposed;

    private IoUring(
        int fd, in Interop.IoUringParams parameters, byte* sqRing, nuint sqRingSize, byte* cqRing, nuint cqRingSize, Interop.IoUringSqe* sqes, nuint sqesSize)
    {
        _fd = fd;
        _sqRing = sqRing;
        _sqRingSize = sqRingSize;
        _cqRing = cqRing;
        _cqRingSize = cqRingSize;
        _sqes = sqes;
        _sqesSize = sqesSize;
        SubmissionEntries = parameters.SqEntries;
        Features = parameters.Features;
        _sqHead = (uint*)(sqRing + parameters.SqOffsets.Head);
        _sqTail = (uint*)(sqRing + parameters.SqOffsets.Tail);
        _sqMask = *(uint*)(sqRing + parameters.SqOffsets.RingMask);
        _sqArray = (uint*)(sqRing + parameters.SqOffsets.Array);
        _cqHead = (uint*)(cqRing + parameters.CqOffsets.Head);
        _cqTail = (uint*)(cqRing + parameters.CqOffsets.Tail);
        _cqMask = *(uint*)(cqRing + parameters.CqOffsets.RingMask);
        _cqes = (Interop.IoUringCqe*)(cqRing + parameters.CqOffsets.Cqes);
        _localTail = *_sqTail;
    }

    /// <summary>How many requests can wait to be submitted at once.</summary>
    public uint SubmissionEntries { get; }

    /// <summary>The kernel's IORING_FEAT_* flags: what its io_uring can do, and so roughly how recent it is.</summary>
    public uint Features { get; }

    /// <summary>Requests written but not yet submitted.</summary>
    public uint Unsubmitted => _unsubmitted;

    /// <summary>
    /// Whether the kernel may treat a file opened <c>O_NONBLOCK</c> as one whose reads must not wait, so that a cold
    /// read comes back <c>EAGAIN</c>: before Linux 5.15. No flag marks 5.15 itself: kernels without 5.17's
    /// IORING_FEAT_CQE_SKIP are taken for older (<see cref="ClearNonBlocking"/> then costs an <c>fcntl</c> more per file).
    /// </summary>
    public bool NonBlockingReadsMayNotWait => (Features & Interop.IoUringFeatureCqeSkip) == 0;

    /// <summary>
    /// Whether a request's negative result says the kernel did not do it (interrupted, it would have waited, or
    /// canceled as the thread that asked exited) rather than that it failed: it is done the ordinary way.
    /// </summary>
    public static bool NotDone(int result) => -result is Interop.EINTR or Interop.EAGAIN or Interop.ECANCELED;

    /// <summary>
    /// Clears <c>O_NONBLOCK</c> (which keeps the open of a FIFO from blocking) from a descriptor known to be a regular
    /// file, so that its reads in the ring may wait for the device on a kernel where <see cref="NonBlockingReadsMayNotWait"/>.
    /// </summary>
    public static void ClearNonBlocking(int fd)
    {
        int flags = Interop.Fcntl(fd, Interop.FcntlGetFlags, 0);
        if (flags >= 0 && (flags & Interop.OpenNonBlocking) != 0)
        {
            Interop.Fcntl(fd, Interop.FcntlSetFlags, flags & ~Interop.OpenNonBlocking);
        }
    }

    /// <summary>Whether the descriptor is open <c>O_NONBLOCK</c>.</summary>
    public static bool IsNonBlocking(int fd) => (Interop.Fcntl(fd, Interop.FcntlGetFlags, 0) & Interop.OpenNonBlocking) != 0;

    /// <summary>
    /// A ring for about <paramref name="entries"/> requests in flight, or <see langword="null"/> with the reason where
    /// the kernel offers none (too old, or a sandbox such as a container's seccomp profile forbids it).
    /// </summary>
    public static IoUring? TryCreate(uint entries, out string? refusal)
    {
        Interop.IoUringParams parameters = default;
        int fd = Interop.IoUringSetup(entries, &parameters);
        if (fd < 0)
        {
            refusal = $"io_uring_setup: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}";
            return null;
        }

        byte* sqRing = null, cqRing = null;
        Interop.IoUringSqe* sqes = null;
        nuint sqRingSize = parameters.SqOffsets.Array + (parameters.SqEntries * sizeof(uint));
        nuint cqRingSize = parameters.CqOffsets.Cqes + (parameters.CqEntries * (uint)sizeof(Interop.IoUringCqe));
        nuint sqesSize = parameters.SqEntries * (uint)sizeof(Interop.IoUringSqe);
        bool singleMap = (parameters.Features & Interop.IoUringFeatureSingleMmap) != 0;
        if (singleMap)
        {
            sqRingSize = cqRingSize = Math.Max(sqRingSize, cqRingSize);
        }

        refusal = SupportsReads(fd) ? null : "the kernel's io_uring has no openat, read or close requests (Linux 5.6 or later has them)";
        if (refusal is null)
        {
            sqRing = Map(fd, sqRingSize, Interop.IoUringOffsetSqRing);
            cqRing = singleMap ? sqRing : Map(fd, cqRingSize, Interop.IoUringOffsetCqRing);
            sqes = (Interop.IoUringSqe*)Map(fd, sqesSize, Interop.IoUringOffsetSqes);
            if (sqRing is null || cqRing is null || sqes is null)
            {
                refusal = $"mmap of the rings: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}";
            }
        }

        if (refusal is not null)
        {
            Unmap(sqRing, sqRingSize);
            Unmap(singleMap ? null : cqRing, cqRingSize);
            Unmap(sqes, sqesSize);
            Interop.Close(fd);
            return null;
        }

        return new IoUring(fd, parameters, sqRing, sqRingSize, cqRing, singleMap ? 0 : cqRingSize, sqes, sqesSize);
    }

    /// <summary>The bytes of the kernel's memory the idle rings hold (their shared rings and submission entries).</summary>
    public static long IdleBytes
    {
        get
        {
            lock (IdleGate)
            {
                long bytes = 0;
                for (int i = 0; i < s_idleCount; i++)
                {
                    IoUring ring = Idle[i]!;
                    bytes += (long)(ring._sqRingSize + ring._cqRingSize + ring._sqesSize);
                }

                return bytes;
            }
        }
    }

    /// <summary>Rings kept open for the next <see cref="Rent"/>: each holds a descriptor and a few pages of the kernel's.</summary>
    public static int IdleCount
    {
        get
        {
            lock (IdleGate)
            {
                return s_idleCount;
            }
        }
    }

    /// <summary>
    /// A ring of at least <paramref name="entries"/> submission entries: one an earlier load gave back
    /// (<see cref="Return"/>) or, when none is kept, a new one (<see cref="TryCreate"/>). Thread-safe.
    /// </summary>
    public static IoUring? Rent(uint entries, out string? refusal)
    {
        IdleTrimmer.NoteUse();
        lock (IdleGate)
        {
            for (int i = s_idleCount - 1; i >= 0; i--)
            {
                IoUring ring = Idle[i]!;
                if (ring.SubmissionEntries >= entries)
                {
                    Idle[i] = Idle[--s_idleCount];
                    Idle[s_idleCount] = null;
                    refusal = null;
                    return ring;
                }
            }
        }

        return TryCreate(entries, out refusal);
    }

    /// <summary>Closes every idle ring (the process has loaded nothing for a while: see <see cref="IdleTrimmer"/>).</summary>
    public static void CloseIdle()
    {
        IoUring?[] closing;
        lock (IdleGate)
        {
            closing = Idle[..s_idleCount];
            Array.Clear(Idle, 0, s_idleCount);
            s_idleCount = 0;
        }

        foreach (IoUring? ring in closing)
        {
            ring!.Dispose();
        }
    }

    /// <summary>
    /// Whether a ring of a kernel with these IORING_FEAT_* flags may be kept idle: not before Linux 5.12, where its
    /// memory counts against RLIMIT_MEMLOCK, which the user's other processes need for their own rings.
    /// </summary>
    internal static bool MayKeepIdle(uint features) => (features & FeatureNativeWorkers) != 0;

    /// <summary>
    /// Gives a rented ring back: kept for the next <see cref="Rent"/> when nothing of its work is left (every request
    /// submitted, every result consumed), fewer than one per core are kept and the kernel does not charge it to the
    /// locked-memory limit (<see cref="MayKeepIdle"/>); closed otherwise. The caller must have waited for all it
    /// submitted: a ring kept with a request in the kernel would write into memory returned since.
    /// </summary>
    public void Return()
    {
        IdleTrimmer.NoteUse();
        if (!_disposed && _unsubmitted == 0 && MayKeepIdle(Features) && !TryPeek(out _, out _))
        {
            lock (IdleGate)
            {
                if (s_idleCount < Idle.Length)
                {
                    Idle[s_idleCount++] = this;
                    return;
                }
            }
        }

        Dispose();
    }

    /// <summary>
    /// Writes an open of <paramref name="path"/> (NUL-terminated, kept alive until its completion), relative to the folder
    /// <paramref name="folder"/> or, when it is -1, to the current one; its result is the descriptor.
    /// </summary>
    public bool TryOpen(int folder, byte* path, int flags, ulong userData) =>
        TryAdd(Interop.IoUringOpOpenAt, folder < 0 ? Interop.AtFdCwd : folder, (ulong)path, 0, 0, (uint)flags, userData);

    /// <summary>
    /// Writes a read of <paramref name="count"/> bytes at <paramref name="offset"/> into <paramref name="buffer"/>
    /// (pinned until its completion).
    /// </summary>
    public bool TryRead(int fd, byte* buffer, uint count, ulong offset, ulong userData) =>
        TryAdd(Interop.IoUringOpRead, fd, (ulong)buffer, count, offset, 0, userData);

    /// <summary>Writes a close of <paramref name="fd"/>; the descriptor is the kernel's to close from here on.</summary>
    /// <param name="fd">The descriptor.</param>
    /// <param name="userData">What its result carries.</param>
    /// <param name="deferred">Run it on the kernel's workers, as file systems with a deferred close do (tests).</param>
    public bool TryClose(int fd, ulong userData, bool deferred = false) =>
        TryAdd(Interop.IoUringOpClose, fd, 0, 0, 0, 0, userData, deferred ? Interop.IoUringSqeAsync : (byte)0);

    /// <summary>
    /// Submits what was written and, with <paramref name="wait"/>, waits until at least one result is there.
    /// </summary>
    /// <exception cref="IOException">The kernel refused the submission.</exception>
    public void Submit(bool wait)
    {
        while (true)
        {
            int submitted = Interop.IoUringEnter(_fd, _unsubmitted, wait ? 1u : 0u, wait ? Interop.IoUringEnterGetEvents : 0);
            if (submitted >= 0)
            {
                _unsubmitted -= (uint)submitted;
                return;
            }

            int errno = Marshal.GetLastPInvokeError();
            if (errno == Interop.EINTR)
            {
                continue;
            }

            // EAGAIN/EBUSY: the completion ring is full; the caller reaps and submits again.
            if (errno is Interop.EAGAIN or Interop.EBUSY)
            {
                return;
            }

            throw new IOException($"io_uring_enter: {Marshal.GetPInvokeErrorMessage(errno)}", errno);
        }
    }

    /// <summary>The next result, if one is there; <see cref="Advance"/> consumes it.</summary>
    public bool TryPeek(out ulong userData, out int result)
    {
        uint head = *_cqHead;
        if (head == Volatile.Read(ref *_cqTail))
        {
            userData = 0;
            result = 0;
            return false;
        }

        Interop.IoUringCqe* cqe = _cqes + (head & _cqMask);
        userData = cqe->UserData;
        result = cqe->Result;
        return true;
    }

    /// <summary>Consumes the result <see cref="TryPeek"/> returned, making its entry the kernel's again.</summary>
    public void Advance() => Volatile.Write(ref *_cqHead, *_cqHead + 1);

    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        Unmap(_sqes, _sqesSize);
        if (_cqRing != _sqRing)
        {
            Unmap(_cqRing, _cqRingSize);
        }

        Unmap(_sqRing, _sqRingSize);
        Interop.Close(_fd);
    }

    private bool TryAdd(byte opcode, int fd, ulong address, uint length, ulong offset, uint operationFlags, ulong userData, byte flags = 0)
    {
        if (_localTail - Volatile.Read(ref *_sqHead) >= SubmissionEntries)
        {
            return false;
        }

        uint index = _localTail & _sqMask;
        Interop.IoUringSqe* sqe = _sqes + index;
        *sqe = default;
        sqe->Opcode = opcode;
        sqe->Flags = flags;
        sqe->Fd = fd;
        sqe->Address = address;
        sqe->Length = length;
        sqe->Offset = offset;
        sqe->OperationFlags = operationFlags;
        sqe->UserData = userData;
        _sqArray[index] = index;
        _localTail++;
        _unsubmitted++;

        // The kernel reads the entry once it sees the new tail: the entry's stores come first.
        Volatile.Write(ref *_sqTail, _localTail);
        return true;
    }

    /// <summary>Whether the kernel knows the three requests a load needs (the probe itself arrived in 5.6, with them).</summary>
    private static bool SupportsReads(int fd)
    {
        const int ProbeOps = 64;

        // struct io_uring_probe (16 bytes) and its struct io_uring_probe_op entries (8 bytes each).
        byte* probe = stackalloc byte[16 + (ProbeOps * 8)];
        new Span<byte>(probe, 16 + (ProbeOps * 8)).Clear();
        if (Interop.IoUringRegister(fd, Interop.IoUringRegisterProbe, probe, ProbeOps) < 0)
        {
            return false;
        }

        int last = probe[0];
        return Supported(Interop.IoUringOpOpenAt) && Supported(Interop.IoUringOpClose) && Supported(Interop.IoUringOpRead);

        bool Supported(byte opcode) => opcode <= last && (*(ushort*)(probe + 16 + (opcode * 8) + 2) & Interop.IoUringOpSupported) != 0;
    }

    private static byte* Map(int fd, nuint size, long offset)
    {
        void* address = Interop.Mmap(null, size, Interop.ProtRead | Interop.ProtWrite, Interop.MapShared | Interop.MapPopulate, fd, offset);
        return address == (void*)-1 ? null : (byte*)address;
    }

    private static void Unmap(void* address, nuint size)
    {
        if (address is not null && size > 0)
        {
            Interop.Munmap(address, size);
        }
    }
}
