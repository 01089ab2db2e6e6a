using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

/// <summary>
/// Which version of which file: its kind and length, when it was last written (Unix time in nanoseconds; 100 ns steps
/// off Linux) and, on Linux, the device and inode it lives at. A record of a file is still good while these match.
/// </summary>
internal readonly partial record struct FileVersion(FileKind Kind, long Length, long LastWriteUnixNanoseconds, ulong DeviceId, ulong Inode)
{
    private const long NanosecondsPerTick = 100;

    /// <summary>Describes <paramref name="path"/>, following symbolic links; throws an exception naming the path when it cannot.</summary>
    public static FileVersion Get(string path)
    {
        if (OperatingSystem.IsLinux())
        {
            return GetLinux(path);
        }

        FileStatus status = FileStatus.Get(path);
        return new FileVersion(status.Kind, status.Length, ToUnixNanoseconds(File.GetLastWriteTimeUtc(path)), status.DeviceId, 0);
    }

    /// <summary>Describes an open file: what was opened, whatever the path names by now.</summary>
    public static FileVersion Get(SafeFileHandle handle, string path)
    {
        if (OperatingSystem.IsLinux())
        {
            return GetLinux(handle, path);
        }

        return new FileVersion(FileKind.Regular, RandomAccess.GetLength(handle), ToUnixNanoseconds(File.GetLastWriteTimeUtc(handle)), 0, 0);
    }

    /// <summary>A point in time as Unix nanoseconds, in the 100 ns steps of <see cref="DateTime"/>.</summary>
    public static long ToUnixNanoseconds(DateTime utc) => (utc.Ticks - DateTime.UnixEpoch.Ticks) * NanosecondsPerTick;
}
