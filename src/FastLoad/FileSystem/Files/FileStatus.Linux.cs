using System.Runtime.InteropServices;

namespace FastLoad.FileSystem;

internal readonly partial record struct FileStatus
{
    private static FileStatus GetLinux(string path) => FromStatx(StatxOf(path));

    private static bool TryGetLinux(string path, out FileStatus status)
    {
        bool described = TryStatxOf(path, out Interop.Statx buffer);
        status = described ? FromStatx(buffer) : default;
        return described;
    }

    /// <summary>Describes an open file descriptor (what was actually opened, not what the path named earlier).</summary>
    internal static FileStatus GetLinux(int fd, string path) => FromStatx(StatxOf(fd, path));

    /// <summary><c>statx</c> of <paramref name="path"/>, following links; an exception naming the path if it fails.</summary>
    internal static Interop.Statx StatxOf(string path) =>
        TryStatxOf(path, out Interop.Statx buffer) ? buffer : throw NativeErrors.ForPath(Marshal.GetLastPInvokeError(), path, "get the status of");

    /// <summary><c>statx</c> of <paramref name="path"/>, following links; <see langword="false"/>, with the errno left, if it fails.</summary>
    private static bool TryStatxOf(string path, out Interop.Statx buffer) =>
        Interop.StatxPath(Interop.AtFdCwd, path, 0, Interop.StatxBasicStats, out buffer) == 0;

    /// <summary><c>statx</c> of an open descriptor; an exception naming <paramref name="path"/> if it fails.</summary>
    internal static unsafe Interop.Statx StatxOf(int fd, string path)
    {
        byte emptyPath = 0;
        if (Interop.StatxFd(fd, &emptyPath, Interop.AtEmptyPath, Interop.StatxBasicStats, out Interop.Statx buffer) != 0)
        {
            throw NativeErrors.ForPath(Marshal.GetLastPInvokeError(), path, "get the status of");
        }

        return buffer;
    }

    private static FileStatus FromStatx(in Interop.Statx buffer)
    {
        FileKind kind = KindFromMode(buffer.Mode);
        ulong device = ((ulong)buffer.DeviceMajor << 32) | buffer.DeviceMinor;
        return new FileStatus(kind, (long)buffer.Size, device);
    }
}
