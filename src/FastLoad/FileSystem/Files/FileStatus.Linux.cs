using System.Runtime.InteropServices;

namespace FastLoad.FileSystem;

internal readonly partial record struct FileStatus
{
    private static FileStatus GetLinux(string path)
    {
        if (Interop.StatxPath(Interop.AtFdCwd, path, 0, Interop.StatxBasicStats, out Interop.Statx buffer) != 0)
        {
            throw NativeErrors.ForPath(Marshal.GetLastPInvokeError(), path, "get the status of");
        }

        return FromStatx(in buffer);
    }

    /// <summary>Describes an open file descriptor (what was actually opened, not what the path named earlier).</summary>
    internal static unsafe FileStatus GetLinux(int fd, string path)
    {
        byte emptyPath = 0;
        if (Interop.StatxFd(fd, &emptyPath, Interop.AtEmptyPath, Interop.StatxBasicStats, out Interop.Statx buffer) != 0)
        {
            throw NativeErrors.ForPath(Marshal.GetLastPInvokeError(), path, "get the status of");
        }

        return FromStatx(in buffer);
    }

    private static FileStatus FromStatx(in Interop.Statx buffer)
    {
        FileKind kind = KindFromMode(buffer.Mode);
        ulong device = ((ulong)buffer.DeviceMajor << 32) | buffer.DeviceMinor;
        return new FileStatus(kind, (long)buffer.Size, device);
    }
}
