using System.Runtime.InteropServices;

namespace FastLoad.Internal;

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
}
