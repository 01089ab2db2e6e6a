using System.Runtime.InteropServices;

namespace FastLoad.FileSystem;

/// <summary>macOS: the kind comes from stat's mode bits; .NET's FileAttributes.Device is never set on Unix.</summary>
internal readonly partial record struct FileStatus
{
    private static FileStatus GetOSX(string path)
    {
        if (Interop.StatDarwin(path, out Interop.DarwinStat buffer) != 0)
        {
            throw NativeErrors.ForPath(Marshal.GetLastPInvokeError(), path, "get the status of");
        }

        return FromDarwinStat(in buffer);
    }

    internal static FileStatus GetOSX(int fd, string path)
    {
        if (Interop.FstatDarwin(fd, out Interop.DarwinStat buffer) != 0)
        {
            throw NativeErrors.ForPath(Marshal.GetLastPInvokeError(), path, "get the status of");
        }

        return FromDarwinStat(in buffer);
    }

    // No device id: StorageProbe describes macOS volumes by mount point, so every file shares one lane, as before.
    private static FileStatus FromDarwinStat(in Interop.DarwinStat buffer) => new(KindFromMode(buffer.Mode), buffer.Size, 0);
}
