using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

internal static partial class UnbufferedReader
{
    /// <summary>
    /// O_DIRECT on the checked descriptor, proven by one aligned read at offset 0 (some file systems accept the flag and
    /// refuse the reads); switched back off and 0 returned where refused.
    /// </summary>
    private static int TryEnableLinux(SafeFileHandle handle, string path, int chunkSize, ReadSettings settings)
    {
        int fd = (int)handle.DangerousGetHandle();
        int flags = Interop.Fcntl(fd, Interop.FcntlGetFlags, 0);
        if (flags < 0 || Interop.Fcntl(fd, Interop.FcntlSetFlags, flags | Interop.OpenDirect) != 0)
        {
            // tmpfs before Linux 6.6 and others refuse O_DIRECT with EINVAL.
            settings.ReportFallback(path, Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError()));
            return 0;
        }

        int alignment = DirectIoAlignment(fd);
        if (alignment == 0 || chunkSize % alignment != 0)
        {
            Refuse(fd, flags, path, settings, alignment == 0
                ? "the file system does not support unbuffered reads of this file"
                : $"the chunk size, {chunkSize:N0} bytes, is not a multiple of the device's alignment, {alignment:N0}");
            return 0;
        }

        using NativeContents probe = NativeContents.AllocateAligned(alignment, alignment);
        try
        {
            ChunkedReader.ReadFully(handle, path, probe.Slice(0, alignment), 0);
            return alignment;
        }
        catch (IOException ex) when (ex.InnerException is IOException { HResult: Interop.EINVAL } || ex.HResult == Interop.EINVAL)
        {
            Refuse(fd, flags, path, settings, ex.Message);
            return 0;
        }
    }

    /// <summary>Switches O_DIRECT back off, so that the caller can read the same descriptor buffered.</summary>
    private static void Refuse(int fd, int flags, string path, ReadSettings settings, string reason)
    {
        Interop.Fcntl(fd, Interop.FcntlSetFlags, flags);
        settings.ReportFallback(path, reason);
    }

    /// <summary>The alignment unbuffered reads need (statx DIOALIGN where the kernel reports it), or 0 where the file cannot be read unbuffered.</summary>
    private static unsafe int DirectIoAlignment(int fd)
    {
        byte emptyPath = 0;
        if (Interop.StatxFd(fd, &emptyPath, Interop.AtEmptyPath, Interop.StatxDioAlign, out Interop.Statx status) != 0
            || (status.Mask & Interop.StatxDioAlign) == 0)
        {
            return FallbackAlignment;
        }

        return status.DirectIoOffsetAlignment == 0
            ? 0
            : (int)Math.Max(FallbackAlignment, Math.Max(status.DirectIoMemoryAlignment, status.DirectIoOffsetAlignment));
    }
}
