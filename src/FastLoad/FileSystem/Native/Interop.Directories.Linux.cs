using System.Runtime.InteropServices;

namespace FastLoad.FileSystem;

internal static unsafe partial class Interop
{
    internal const byte DirentUnknown = 0;
    internal const byte DirentDirectory = 4;
    internal const byte DirentSymbolicLink = 10;

    /// <summary>STATX_TYPE: only the file type bits of <see cref="Statx.Mode"/>.</summary>
    internal const uint StatxType = 0x1;

    /// <summary>The offset of <c>d_reclen</c>, <c>d_type</c> and <c>d_name</c> in <c>struct linux_dirent64</c>.</summary>
    internal const int DirentRecordLengthOffset = 16;
    internal const int DirentTypeOffset = 18;
    internal const int DirentNameOffset = 19;

    [LibraryImport(Libc, EntryPoint = "open", SetLastError = true)]
    internal static partial int OpenBytes(byte* path, int flags, int mode);

    /// <summary>
    /// getdents64(2), the directory's next entries as <c>struct linux_dirent64</c> records: the number of bytes filled, 0
    /// at the end, -1 with errno. Called by number, which every libc accepts (glibc wraps it only from 2.30).
    /// </summary>
    internal static int GetDirectoryEntries(int fd, byte* buffer, int count) =>
        (int)Syscall(RuntimeInformation.ProcessArchitecture is Architecture.Arm64 ? 61 : 217, fd, (long)buffer, count, 0, 0, 0);
}
