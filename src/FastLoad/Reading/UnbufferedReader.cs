using System.Runtime.InteropServices;
using FastLoad.Internal;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Reading;

/// <summary>
/// Reads a large file around the page cache (Linux <c>O_DIRECT</c>) into native memory aligned as the device
/// requires: no copy through the cache, and the cache of everything else is left as it was. Requests are whole
/// multiples of the alignment; the last one may return less (the unaligned tail). O_DIRECT is switched on for the
/// descriptor already opened and checked as a regular file, so the file is not opened twice. Where the file system
/// refuses, the flag is switched back off and <see langword="null"/> returned, so that the caller reads buffered.
/// </summary>
internal static class UnbufferedReader
{
    /// <summary>Used when the kernel does not report the alignment (before Linux 6.1): the common logical block size.</summary>
    internal const int FallbackAlignment = 4096;

    public static FileContents? TryRead(SafeFileHandle handle, string path, long length, ReadSettings settings, CancellationToken cancellationToken)
    {
        if (!OperatingSystem.IsLinux() || settings.SimulateRefusal)
        {
            settings.ReportFallback(path, settings.SimulateRefusal ? "refusal simulated" : "unbuffered reads are implemented for Linux only");
            return null;
        }

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

        long capacity = (length + alignment - 1) / alignment * alignment;
        NativeContents contents = NativeContents.AllocateAligned(capacity, alignment);
        try
        {
            long read = ChunkedReader.Read(handle, path, length, settings.ChunkSize, settings.UnbufferedReadsInFlightCount, alignment, contents.Slice, cancellationToken);
            contents.Truncate(read);
            return contents;
        }
        catch (IOException ex) when (ex.InnerException is IOException { HResult: Interop.EINVAL } || ex.HResult == Interop.EINVAL)
        {
            // Some file systems accept O_DIRECT on the descriptor and refuse the reads.
            contents.Dispose();
            return Refused(fd, flags, path, settings, ex.Message);
        }
        catch
        {
            contents.Dispose();
            throw;
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
