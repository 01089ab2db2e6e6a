using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

/// <summary>
/// The small files the kernel answers through (sysfs attributes, <c>/proc</c> entries), read on Linux.
/// </summary>
internal static class KernelFiles
{
    /// <summary>
    /// Reads a small file into <paramref name="buffer"/>; returns the bytes read, 0 where it is missing or unreadable.
    /// Open, one read, close, through the calls every load already makes: a stream, a reader and an exception per
    /// missing file (a virtio disk has no model attribute) would each cost a new process more than the read.
    /// </summary>
    public static unsafe int Read(string path, Span<byte> buffer)
    {
        int fd = Interop.Open(path, Interop.OpenReadOnly | Interop.OpenCloseOnExec, 0);
        if (fd < 0)
        {
            return 0;
        }

        using var handle = new SafeFileHandle(fd, ownsHandle: true);
        fixed (byte* start = buffer)
        {
            nint read = Interop.PRead(handle, start, buffer.Length, 0);
            return read < 0 ? 0 : (int)read;
        }
    }
}
