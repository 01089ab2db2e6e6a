using System.Runtime.InteropServices;
using FastLoad.Internal;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Reading;

internal static partial class UnbufferedReader
{
    /// <summary>O_DIRECT on the checked descriptor (no second open); switched back off where the file system refuses.</summary>
    private static FileContents? TryReadLinux(SafeFileHandle handle, string path, long length, ReadSettings settings, CancellationToken cancellationToken)
    {
        int fd = (int)handle.DangerousGetHandle();
        int flags = Interop.Fcntl(fd, Interop.FcntlGetFlags, 0);
        if (flags < 0 || Interop.Fcntl(fd, Interop.FcntlSetFlags, flags | Interop.OpenDirect) != 0)
        {
            // tmpfs before Linux 6.6 and others refuse O_DIRECT with EINVAL.
            settings.ReportFallback(path, Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError()));
            return null;
        }

        int alignment = DirectIoAlignment(fd);
        if (alignment == 0)
        {
            return Refused(fd, flags, path, settings, "the file system does not support unbuffered reads of this file");
        }

        try
        {
            return ReadAligned(handle, path, length, alignment, settings, cancellationToken);
        }
        catch (IOException ex) when (ex.InnerException is IOException { HResult: Interop.EINVAL } || ex.HResult == Interop.EINVAL)
        {
            // Some file systems accept O_DIRECT on the descriptor and refuse the reads.
            return Refused(fd, flags, path, settings, ex.Message);
        }
    }

    /// <summary>Switches O_DIRECT back off, so that the caller can read the same descriptor buffered.</summary>
    private static FileContents? Refused(int fd, int flags, string path, ReadSettings settings, string reason)
    {
        Interop.Fcntl(fd, Interop.FcntlSetFlags, flags);
        settings.ReportFallback(path, reason);
        return null;
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
