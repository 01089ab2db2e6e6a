using System.Runtime.InteropServices;
using FastLoad.Internal;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Reading;

/// <summary>
/// Reads a large file around the page cache (Linux <c>O_DIRECT</c>) into native memory aligned as the device
/// requires: no copy through the cache, and the cache of everything else is left as it was. Requests are whole
/// multiples of the alignment; the last one may return less (the unaligned tail). Where the file system refuses,
/// returns <see langword="null"/> so that the caller reads buffered.
/// </summary>
internal static class UnbufferedReader
{
    /// <summary>Used when the kernel does not report the alignment (before Linux 6.1): the common logical block size.</summary>
    internal const int FallbackAlignment = 4096;

    public static FileContents? TryRead(string path, long length, ReadSettings settings, CancellationToken cancellationToken)
    {
        if (!OperatingSystem.IsLinux() || settings.SimulateRefusal)
        {
            settings.ReportFallback(path, settings.SimulateRefusal ? "refusal simulated" : "unbuffered reads are implemented for Linux only");
            return null;
        }

        SafeFileHandle? handle = TryOpen(path, settings, out int alignment);
        if (handle is null)
        {
            return null;
        }

        using (handle)
        {
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
                // Some file systems accept O_DIRECT at open and refuse the reads.
                contents.Dispose();
                settings.ReportFallback(path, ex.Message);
                return null;
            }
            catch
            {
                contents.Dispose();
                throw;
            }
        }
    }

    private static unsafe SafeFileHandle? TryOpen(string path, ReadSettings settings, out int alignment)
    {
        alignment = FallbackAlignment;
        int flags = Interop.OpenReadOnly | Interop.OpenCloseOnExec | Interop.OpenNonBlocking | Interop.OpenNoControllingTerminal | Interop.OpenDirect;
        int fd;
        int errno;
        do
        {
            fd = Interop.Open(path, flags, 0);
            errno = fd < 0 ? Marshal.GetLastPInvokeError() : 0;
        }
        while (errno == Interop.EINTR);

        if (fd < 0)
        {
            // tmpfs and others refuse O_DIRECT with EINVAL; any other error the buffered path reports properly.
            settings.ReportFallback(path, Marshal.GetPInvokeErrorMessage(errno));
            return null;
        }

        var handle = new SafeFileHandle(fd, ownsHandle: true);
        byte emptyPath = 0;
        if (Interop.StatxFd(fd, &emptyPath, Interop.AtEmptyPath, Interop.StatxDioAlign, out Interop.Statx status) == 0
            && (status.Mask & Interop.StatxDioAlign) != 0)
        {
            if (status.DirectIoOffsetAlignment == 0)
            {
                handle.Dispose();
                settings.ReportFallback(path, "the file system does not support unbuffered reads of this file");
                return null;
            }

            alignment = (int)Math.Max(FallbackAlignment, Math.Max(status.DirectIoMemoryAlignment, status.DirectIoOffsetAlignment));
        }

        return handle;
    }
}
