using System.Runtime.InteropServices;

namespace FastLoad.FileSystem;

/// <summary>The io_uring system calls and structures (linux/io_uring.h); callers check <see cref="OperatingSystem.IsLinux"/> first.</summary>
internal static unsafe partial class Interop
{
    // io_uring arrived after the system call tables were unified: the same numbers on every architecture.
    private const long SysIoUringSetup = 425;
    private const long SysIoUringEnter = 426;
    private const long SysIoUringRegister = 427;

    internal const byte IoUringOpOpenAt = 18;
    internal const byte IoUringOpClose = 19;
    internal const byte IoUringOpRead = 22;

    internal const uint IoUringEnterGetEvents = 1;

    /// <summary>IOSQE_ASYNC: the request runs on the kernel's workers rather than inline.</summary>
    internal const byte IoUringSqeAsync = 1 << 4;
    internal const uint IoUringFeatureSingleMmap = 1;

    /// <summary>IORING_FEAT_CQE_SKIP, new in Linux 5.17: the first flag that proves a kernel of 5.15 or later.</summary>
    internal const uint IoUringFeatureCqeSkip = 1 << 11;
    internal const uint IoUringRegisterProbe = 8;
    internal const ushort IoUringOpSupported = 1;

    internal const long IoUringOffsetSqRing = 0;
    internal const long IoUringOffsetCqRing = 0x8000000;
    internal const long IoUringOffsetSqes = 0x10000000;

    internal const int EAGAIN = 11;
    internal const int EBUSY = 16;
    internal const int ECANCELED = 125;

    /// <summary><c>struct io_uring_params</c>: what <c>io_uring_setup</c> reports about the rings it made.</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct IoUringParams
    {
        public uint SqEntries;
        public uint CqEntries;
        public uint Flags;
        public uint SqThreadCpu;
        public uint SqThreadIdle;
        public uint Features;
        public uint WqFd;
        public fixed uint Reserved[3];
        public IoSqRingOffsets SqOffsets;
        public IoCqRingOffsets CqOffsets;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct IoSqRingOffsets
    {
        public uint Head;
        public uint Tail;
        public uint RingMask;
        public uint RingEntries;
        public uint Flags;
        public uint Dropped;
        public uint Array;
        public uint Reserved;
        public ulong UserAddress;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct IoCqRingOffsets
    {
        public uint Head;
        public uint Tail;
        public uint RingMask;
        public uint RingEntries;
        public uint Overflow;
        public uint Cqes;
        public uint Flags;
        public uint Reserved;
        public ulong UserAddress;
    }

    /// <summary><c>struct io_uring_sqe</c>, the fields the reads use (64 bytes).</summary>
    [StructLayout(LayoutKind.Explicit, Size = 64)]
    internal struct IoUringSqe
    {
        [FieldOffset(0)] public byte Opcode;
        [FieldOffset(1)] public byte Flags;
        [FieldOffset(4)] public int Fd;
        [FieldOffset(8)] public ulong Offset;
        [FieldOffset(16)] public ulong Address;
        [FieldOffset(24)] public uint Length;
        [FieldOffset(28)] public uint OperationFlags;
        [FieldOffset(32)] public ulong UserData;
    }

    /// <summary><c>struct io_uring_cqe</c> (16 bytes).</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct IoUringCqe
    {
        public ulong UserData;
        public int Result;
        public uint Flags;
    }

    // syscall(2) is variadic; with integer arguments only, the x64 and arm64 Linux calling conventions match a fixed signature.
    [LibraryImport(Libc, EntryPoint = "syscall", SetLastError = true)]
    private static partial long Syscall(long number, long argument1, long argument2, long argument3, long argument4, long argument5, long argument6);

    internal static int IoUringSetup(uint entries, IoUringParams* parameters) => (int)Syscall(SysIoUringSetup, entries, (long)parameters, 0, 0, 0, 0);

    internal static int IoUringEnter(int ring, uint toSubmit, uint minComplete, uint flags) =>
        (int)Syscall(SysIoUringEnter, ring, toSubmit, minComplete, flags, 0, 0);

    internal static int IoUringRegister(int ring, uint opcode, void* argument, uint count) =>
        (int)Syscall(SysIoUringRegister, ring, opcode, (long)argument, count, 0, 0);

    [LibraryImport(Libc, EntryPoint = "close", SetLastError = true)]
    internal static partial int Close(int fd);
}
