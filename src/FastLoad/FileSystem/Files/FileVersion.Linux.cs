using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

internal readonly partial record struct FileVersion
{
    private static FileVersion GetLinux(string path) => FromStatx(FileStatus.StatxOf(path));

    private static FileVersion GetLinux(SafeFileHandle handle, string path) => FromStatx(FileStatus.StatxOf((int)handle.DangerousGetHandle(), path));

    private static FileVersion FromStatx(in Interop.Statx buffer) => new(
        FileStatus.KindFromMode(buffer.Mode),
        (long)buffer.Size,
        (buffer.ModifiedSeconds * 1_000_000_000) + buffer.ModifiedNanoseconds,
        ((ulong)buffer.DeviceMajor << 32) | buffer.DeviceMinor,
        buffer.Inode);
}
