using System.Diagnostics.CodeAnalysis;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace FastLoad.FileSystem;

/// <summary>The few libc calls the Linux code paths need; callers check <see cref="OperatingSystem.IsLinux"/> first.</summary>
internal static unsafe partial class Interop
{
    private const string Libc = "libc";
    private const string GlibcSoname = "libc.so.6";

    /// <summary>
    /// On Linux, binds this library's C library calls to the glibc the process runs on before the runtime searches for
    /// "libc" by name: NativeAOT compares the name's variations in a way that loads ICU (about 2 ms on a process's first
    /// load, where the app had not needed ICU yet), and CoreCLR tries a few files first, one of them a linker script.
    /// Elsewhere, and on a C library of another name (musl), the runtime's own search runs as before.
    /// </summary>
    [ModuleInitializer]
    [SuppressMessage("Usage", "CA2255:The 'ModuleInitializer' attribute should not be used in libraries", Justification = "It must run before this library's first native call, and it only sets how this library's own imports resolve.")]
    internal static void BindLibcOnLinux()
    {
        if (OperatingSystem.IsLinux())
        {
            NativeLibrary.SetDllImportResolver(typeof(Interop).Assembly, ResolveLibc);
        }
    }

    internal static nint ResolveLibc(string libraryName, Assembly assembly, DllImportSearchPath? searchPath) =>
        libraryName is Libc or GlibcSoname && NativeLibrary.TryLoad(GlibcSoname, out nint handle) ? handle : 0;

    internal const int AtFdCwd = -100;
    internal const int AtEmptyPath = 0x1000;
    internal const uint StatxBasicStats = 0x7ff;

    internal const int AtSymlinkNoFollow = 0x100;

    internal const int OpenReadOnly = 0x0;
    internal const int OpenWriteOnly = 0x1;
    internal const int OpenCreate = 0x40;
    internal const int OpenExclusive = 0x80;
    internal const int OpenNoControllingTerminal = 0x100;
    internal const int OpenNonBlocking = 0x800;
    internal const int OpenCloseOnExec = 0x80000;

    /// <summary>STATX_DIOALIGN: the alignment unbuffered I/O needs (Linux 6.1+; absent from the mask on older kernels).</summary>
    internal const uint StatxDioAlign = 0x2000;

    /// <summary>O_DIRECT differs between architectures (x86/x64: 040000; arm/arm64: 0200000).</summary>
    internal static int OpenDirect => RuntimeInformation.ProcessArchitecture is Architecture.Arm64 or Architecture.Arm ? 0x10000 : 0x4000;

    // arm and arm64 number these two apart from x64 too (asm/fcntl.h).
    internal static int OpenDirectory => RuntimeInformation.ProcessArchitecture is Architecture.Arm64 or Architecture.Arm ? 0x4000 : 0x10000;

    internal static int OpenNoFollow => RuntimeInformation.ProcessArchitecture is Architecture.Arm64 or Architecture.Arm ? 0x8000 : 0x20000;

    internal const int EINVAL = 22;

    internal const int ENOENT = 2;
    internal const int EEXIST = 17;
    internal const int EINTR = 4;
    internal const int EACCES = 13;
    internal const int EPERM = 1;
    internal const int ENOTDIR = 20;
    internal const int ENAMETOOLONG = 36;
    internal const int ELOOP = 40;
    internal const int ENOSYS = 38;

    /// <summary>The leading part of <c>struct statx</c> (its layout is the same on every Linux architecture).</summary>
    [StructLayout(LayoutKind.Explicit, Size = 256)]
    internal struct Statx
    {
        [FieldOffset(0)] public uint Mask;
        [FieldOffset(4)] public uint BlockSize;
        [FieldOffset(28)] public ushort Mode;
        [FieldOffset(32)] public ulong Inode;
        [FieldOffset(40)] public ulong Size;
        [FieldOffset(112)] public long ModifiedSeconds;
        [FieldOffset(120)] public uint ModifiedNanoseconds;
        [FieldOffset(136)] public uint DeviceMajor;
        [FieldOffset(140)] public uint DeviceMinor;
        [FieldOffset(152)] public uint DirectIoMemoryAlignment;
        [FieldOffset(156)] public uint DirectIoOffsetAlignment;
    }

    [LibraryImport(Libc, EntryPoint = "statx", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int StatxPath(int directoryFd, string path, int flags, uint mask, out Statx buffer);

    [LibraryImport(Libc, EntryPoint = "statx", SetLastError = true)]
    internal static partial int StatxFd(int fd, byte* emptyPath, int flags, uint mask, out Statx buffer);

    // open(2) is variadic in C; with integer arguments only, the x64 and arm64 Linux calling conventions match a fixed signature.
    [LibraryImport(Libc, EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int Open(string path, int flags, int mode);

    /// <summary>FS_IOC_FIEMAP = _IOWR('f', 11, struct fiemap).</summary>
    internal const ulong FsIocFiemap = 0xC020660B;

    /// <summary><c>struct fiemap</c> with room for one <c>struct fiemap_extent</c>.</summary>
    [StructLayout(LayoutKind.Explicit, Size = 32 + 56)]
    internal struct Fiemap
    {
        [FieldOffset(0)] public ulong Start;
        [FieldOffset(8)] public ulong Length;
        [FieldOffset(16)] public uint Flags;
        [FieldOffset(20)] public uint MappedExtents;
        [FieldOffset(24)] public uint ExtentCount;
        [FieldOffset(32 + 8)] public ulong FirstExtentPhysical;
    }

    [LibraryImport(Libc, EntryPoint = "pread", SetLastError = true)]
    internal static partial nint PRead(SafeHandle fd, byte* buffer, nint count, long offset);

    /// <summary><c>struct statfs</c> on 64-bit Linux (120 bytes): only its first field, the file system's magic number, is read.</summary>
    [StructLayout(LayoutKind.Explicit, Size = 120)]
    internal struct FileSystemStatus
    {
        [FieldOffset(0)] public long Type;
    }

    [LibraryImport(Libc, EntryPoint = "fstatfs", SetLastError = true)]
    internal static partial int FileSystemStatusOf(int fd, FileSystemStatus* buffer);

    /// <summary>preadv2's flag: read only what the page cache holds; <c>EAGAIN</c> where the read would wait for the device.</summary>
    internal const int ReadNoWait = 0x8;

    [StructLayout(LayoutKind.Sequential)]
    internal struct IoVector
    {
        public void* Base;
        public nuint Length;
    }

    [LibraryImport(Libc, EntryPoint = "preadv2", SetLastError = true)]
    internal static partial nint PReadV2(SafeHandle fd, IoVector* vectors, int count, long offset, int flags);

    // ioctl(2) is variadic; one pointer argument passes the same way as in a fixed signature on x64 and arm64 Linux.
    [LibraryImport(Libc, EntryPoint = "ioctl", SetLastError = true)]
    internal static partial int Ioctl(int fd, ulong request, void* argument);

    internal const int ProtRead = 1;
    internal const int ProtWrite = 2;
    internal const int MapShared = 1;
    internal const int MapPrivate = 2;
    internal const int MapAnonymous = 0x20;
    internal const int MapPopulate = 0x8000;

    [LibraryImport(Libc, EntryPoint = "mmap", SetLastError = true)]
    internal static partial void* Mmap(void* address, nuint length, int protection, int flags, int fd, long offset);

    internal const int MadviseHugePage = 14;
    internal const int MadvisePopulateWrite = 23;

    [LibraryImport(Libc, EntryPoint = "madvise", SetLastError = true)]
    internal static partial int Madvise(void* address, nuint length, int advice);

    [LibraryImport(Libc, EntryPoint = "munmap", SetLastError = true)]
    internal static partial int Munmap(void* address, nuint length);

    /// <summary>mremap(2)'s flag: the mapping may move to grow.</summary>
    internal const int MremapMayMove = 1;

    [LibraryImport(Libc, EntryPoint = "mremap", SetLastError = true)]
    internal static partial void* Mremap(void* address, nuint oldLength, nuint newLength, int flags);

    internal const int FcntlGetFlags = 3;
    internal const int FcntlSetFlags = 4;

    // fcntl(2) is variadic; with integer arguments only, the calling conventions match a fixed signature (as for open).
    // macOS x64 calls it too; Apple arm64 needs another signature (Interop.Darwin.cs).
    [LibraryImport(Libc, EntryPoint = "fcntl", SetLastError = true)]
    internal static partial int Fcntl(int fd, int command, int argument);

    // Variadic like open(2), and called the same way: the Linux calling conventions match a fixed signature.
    [LibraryImport(Libc, EntryPoint = "openat", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int OpenAt(int directoryFd, string path, int flags, int mode);

    [LibraryImport(Libc, EntryPoint = "mkdirat", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int MakeDirectoryAt(int directoryFd, string path, int mode);

    [LibraryImport(Libc, EntryPoint = "unlinkat", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int UnlinkAt(int directoryFd, string path, int flags);

    /// <summary>POSIX_FADV_WILLNEED: start reading the range into the page cache and return.</summary>
    internal const int FadviseWillNeed = 3;

    /// <summary>Returns 0 or an errno value (posix_fadvise does not set errno).</summary>
    [LibraryImport(Libc, EntryPoint = "posix_fadvise")]
    internal static partial int PosixFadvise(int fd, long offset, long length, int advice);

    /// <summary>Fills one byte per page of the mapping at <paramref name="address"/>; bit 0 set: the page is in memory. Linux and macOS.</summary>
    [LibraryImport(Libc, EntryPoint = "mincore", SetLastError = true)]
    internal static partial int Mincore(void* address, nuint length, byte* vector);

    /// <summary><c>struct cachestat_range</c>: the bytes of a file <see cref="Cachestat"/> counts.</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct CachestatRange
    {
        public ulong Offset;
        public ulong Length;
    }

    /// <summary><c>struct cachestat</c>: pages of the range in the page cache, and of those dirty, under writeback, evicted.</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct CachestatResult
    {
        public ulong Cached;
        public ulong Dirty;
        public ulong Writeback;
        public ulong Evicted;
        public ulong RecentlyEvicted;
    }

    /// <summary>
    /// cachestat(2), Linux 6.5 and later, which libc does not wrap (the same number on every architecture): how many
    /// pages of a range of an open file are cached, without mapping it. -1 with ENOSYS before 6.5, and with EPERM where a
    /// seccomp profile does not know it.
    /// </summary>
    internal static int Cachestat(int fd, CachestatRange* range, CachestatResult* result) => (int)Syscall(451, fd, (long)range, (long)result, 0, 0, 0);

    /// <summary><c>struct open_how</c> of openat2(2).</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct OpenHow
    {
        public ulong Flags;
        public ulong Mode;
        public ulong Resolve;
    }

    /// <summary>RESOLVE_CACHED (Linux 5.12): fail with EAGAIN unless every name on the path is in the kernel's lookup cache.</summary>
    internal const ulong ResolveCached = 0x20;

    /// <summary>
    /// openat2(2), Linux 5.6 and later, which glibc does not wrap (the same number on every architecture): -1 with ENOSYS
    /// before 5.6, and with EINVAL where a resolve flag is newer than the kernel.
    /// </summary>
    internal static int OpenAt2(int directoryFd, byte* path, OpenHow* how) => (int)Syscall(437, directoryFd, (long)path, (long)how, sizeof(OpenHow), 0, 0);

    internal const int PriorityProcess = 0;

    /// <summary>setpriority(2): with <see cref="PriorityProcess"/> and <paramref name="who"/> 0, the calling thread's nice value on Linux.</summary>
    [LibraryImport(Libc, EntryPoint = "setpriority", SetLastError = true)]
    internal static partial int SetPriority(int which, int who, int priority);

    internal const int ResourceUsageSelf = 0;

    /// <summary>
    /// The leading part of <c>struct rusage</c> on 64-bit Linux, up to <c>ru_inblock</c>: two <c>timeval</c>s, then
    /// <c>long</c>s.
    /// </summary>
    [StructLayout(LayoutKind.Explicit, Size = 144)]
    internal struct ResourceUsage
    {
        /// <summary><c>ru_inblock</c>: the 512-byte blocks the process's reads and page faults asked of storage.</summary>
        [FieldOffset(88)] public long BlockInputs;
    }

    /// <summary>getrusage(2); with <see cref="ResourceUsageSelf"/>, every thread of the process, ended ones too.</summary>
    [LibraryImport(Libc, EntryPoint = "getrusage")]
    internal static partial int GetResourceUsage(int who, ResourceUsage* usage);

    /// <summary>
    /// <see cref="GetResourceUsage"/> from glibc by its soname, which the runtime opens at once; "libc" it finds only
    /// after a few names that fail, a third of a millisecond at the top of <c>Main</c>.
    /// </summary>
    [LibraryImport(GlibcSoname, EntryPoint = "getrusage")]
    internal static partial int GetResourceUsageGlibc(int who, ResourceUsage* usage);

    /// <summary><c>PT_LOAD</c>: a program header for a segment that is mapped from the file (elf.h).</summary>
    internal const uint ProgramHeaderLoad = 1;

    /// <summary>The leading fields of <c>struct dl_phdr_info</c> in a 64-bit process (link.h).</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct SharedObjectInfo64
    {
        /// <summary><c>dlpi_addr</c>: where the object was loaded, added to each segment's virtual address.</summary>
        public ulong LoadAddress;
        public byte* Name;
        public ProgramHeader64* ProgramHeaders;
        public ushort ProgramHeaderCount;
    }

    /// <summary><c>Elf64_Phdr</c> (elf.h).</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct ProgramHeader64
    {
        public uint Type;
        public uint Flags;
        public ulong FileOffset;
        public ulong VirtualAddress;
        public ulong PhysicalAddress;
        public ulong FileSize;
        public ulong MemorySize;
        public ulong Alignment;
    }

    /// <summary>dl_iterate_phdr(3): calls <paramref name="callback"/> for each loaded object, in the dynamic linker's order (the executable first).</summary>
    [LibraryImport(Libc, EntryPoint = "dl_iterate_phdr")]
    internal static partial int IterateSharedObjects(delegate* unmanaged<SharedObjectInfo64*, nuint, void*, int> callback, void* data);

    internal const int IoPriorityWhoProcess = 1;
    internal const int IoPriorityClassBestEffort = 2;
    internal const int IoPriorityClassShift = 13;

    /// <summary>
    /// ioprio_set(2), which libc does not wrap; with <see cref="IoPriorityWhoProcess"/> and <paramref name="who"/> 0 it
    /// sets the calling thread's priority. -1 (ENOSYS) on an architecture whose number is not known here.
    /// </summary>
    internal static int IoPrioritySet(int which, int who, int priority) => RuntimeInformation.ProcessArchitecture switch
    {
        Architecture.X64 => (int)Syscall(251, which, who, priority, 0, 0, 0),
        Architecture.Arm64 => (int)Syscall(30, which, who, priority, 0, 0, 0),
        _ => -1,
    };
}
