using System.Runtime.InteropServices;

namespace FastLoad.FileSystem;

/// <summary>
/// The few libSystem calls the macOS code paths need; callers check <see cref="OperatingSystem.IsMacOS"/> first.
/// Values and layouts are those of the macOS SDK (sys/fcntl.h, sys/mount.h) for x64 and arm64.
/// </summary>
internal static unsafe partial class Interop
{
    /// <summary>F_NOCACHE: turns data caching off (argument 1) or on (0) for one descriptor.</summary>
    internal const int DarwinNoCache = 48;

    /// <summary>MFSTYPENAMELEN: the file system type name, NUL included.</summary>
    internal const int DarwinFileSystemTypeNameLength = 16;

    /// <summary>MAXPATHLEN: the mount point and mount source names.</summary>
    internal const int DarwinMaxPathLength = 1024;

    /// <summary>
    /// <c>struct statfs</c> with 64-bit inodes (<c>__DARWIN_STRUCT_STATFS64</c>, 2,168 bytes): the only layout on arm64,
    /// and the one <c>statfs$INODE64</c> fills on x64.
    /// </summary>
    [StructLayout(LayoutKind.Explicit, Size = 2168)]
    internal struct DarwinStatfs
    {
        [FieldOffset(48)] public int FileSystemId0;
        [FieldOffset(64)] public uint Flags;
        [FieldOffset(72)] public fixed byte FileSystemTypeName[DarwinFileSystemTypeNameLength];
        [FieldOffset(88)] public fixed byte MountedOnName[DarwinMaxPathLength];
        [FieldOffset(1112)] public fixed byte MountedFromName[DarwinMaxPathLength];
    }

    /// <summary>statfs(2) into the 64-bit-inode layout on either architecture.</summary>
    internal static int StatfsDarwin(string path, out DarwinStatfs buffer) =>
        RuntimeInformation.ProcessArchitecture == Architecture.X64 ? StatfsInode64(path, out buffer) : Statfs(path, out buffer);

    /// <summary>fcntl(2) with one integer argument, passed where the variadic calling convention of the architecture puts it.</summary>
    internal static int FcntlDarwin(int fd, int command, int argument) =>
        RuntimeInformation.ProcessArchitecture == Architecture.Arm64
            ? FcntlAppleArm64(fd, command, 0, 0, 0, 0, 0, 0, argument)
            : Fcntl(fd, command, argument);

    // x64 keeps the pre-10.6 32-bit-inode layout under the plain name and exports the 64-bit one as statfs$INODE64;
    // arm64 has only the 64-bit layout, under the plain name (what the SDK's __DARWIN_INODE64 macro links to).
    [LibraryImport(Libc, EntryPoint = "statfs$INODE64", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int StatfsInode64(string path, out DarwinStatfs buffer);

    [LibraryImport(Libc, EntryPoint = "statfs", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Statfs(string path, out DarwinStatfs buffer);

    // Apple arm64 passes every variadic argument on the stack, never in a register: six dummies fill x2-x7, so the
    // argument, an 8-byte slot, lands at [sp] where va_arg reads it (dotnet/runtime#48752). On x64 the fixed
    // three-argument signature matches, as on Linux (Interop.Libc.cs).
    [LibraryImport(Libc, EntryPoint = "fcntl", SetLastError = true)]
    private static partial int FcntlAppleArm64(int fd, int command, nint x2, nint x3, nint x4, nint x5, nint x6, nint x7, nint argument);

    internal const int DarwinOpenNonBlocking = 0x4;
    internal const int DarwinOpenNoFollow = 0x100;
    internal const int DarwinOpenCreate = 0x200;
    internal const int DarwinOpenExclusive = 0x800;
    internal const int DarwinOpenNoControllingTerminal = 0x20000;
    internal const int DarwinOpenDirectory = 0x100000;
    internal const int DarwinOpenCloseOnExec = 0x1000000;
    internal const int DarwinAtFdCwd = -2;

    /// <summary>struct stat with 64-bit inodes (sys/stat.h): only the fields FastLoad reads.</summary>
    [StructLayout(LayoutKind.Explicit, Size = 144)]
    internal struct DarwinStat
    {
        [FieldOffset(0)] public int Device;
        [FieldOffset(4)] public ushort Mode;
        [FieldOffset(96)] public long Size;
    }

    internal static int StatDarwin(string path, out DarwinStat buffer) =>
        RuntimeInformation.ProcessArchitecture == Architecture.X64 ? StatInode64(path, out buffer) : Stat(path, out buffer);

    internal static int FstatDarwin(int fd, out DarwinStat buffer) =>
        RuntimeInformation.ProcessArchitecture == Architecture.X64 ? FstatInode64(fd, out buffer) : Fstat(fd, out buffer);

    // The same split as statfs: x64 exports the 64-bit-inode layout as stat$INODE64, arm64 under the plain name.
    [LibraryImport(Libc, EntryPoint = "stat$INODE64", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int StatInode64(string path, out DarwinStat buffer);

    [LibraryImport(Libc, EntryPoint = "stat", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Stat(string path, out DarwinStat buffer);

    [LibraryImport(Libc, EntryPoint = "fstat$INODE64", SetLastError = true)]
    private static partial int FstatInode64(int fd, out DarwinStat buffer);

    [LibraryImport(Libc, EntryPoint = "fstat", SetLastError = true)]
    private static partial int Fstat(int fd, out DarwinStat buffer);

    /// <summary>F_RDADVISE: start reading a range (<see cref="DarwinReadAdvisory"/>) into the cache; the macOS WILLNEED.</summary>
    internal const int DarwinReadAdvise = 44;

    /// <summary>F_RDAHEAD: read ahead on this descriptor (argument 1) or not (0).</summary>
    internal const int DarwinReadAhead = 45;

    /// <summary><c>struct radvisory</c> (sys/fcntl.h): an offset and a byte count.</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct DarwinReadAdvisory
    {
        public long Offset;
        public int Count;
    }

    /// <summary>fcntl(2) with a pointer argument, passed where the variadic calling convention of the architecture puts it.</summary>
    internal static int FcntlDarwin(int fd, int command, void* argument) =>
        RuntimeInformation.ProcessArchitecture == Architecture.Arm64
            ? FcntlAppleArm64(fd, command, 0, 0, 0, 0, 0, 0, (nint)argument)
            : FcntlPointer(fd, command, argument);

    [LibraryImport(Libc, EntryPoint = "fcntl", SetLastError = true)]
    private static partial int FcntlPointer(int fd, int command, void* argument);

    internal const int DarwinIoPolicyTypeDisk = 0;
    internal const int DarwinIoPolicyScopeThread = 1;

    /// <summary>IOPOL_UTILITY: I/O that the user does not wait for, throttled behind the rest.</summary>
    internal const int DarwinIoPolicyUtility = 4;

    [LibraryImport(Libc, EntryPoint = "setiopolicy_np", SetLastError = true)]
    internal static partial int SetIoPolicyDarwin(int type, int scope, int policy);
}
