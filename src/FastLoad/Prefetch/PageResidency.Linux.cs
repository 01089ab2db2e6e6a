using System.Runtime.InteropServices;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Prefetch;

internal static unsafe partial class PageResidency
{
    // Set once cachestat is refused (a kernel before 6.5, a seccomp profile that does not know it): mincore from then on.
    private static volatile bool s_cachestatRefused;

    /// <summary>
    /// Whether all of <c>[offset, offset + length)</c> (cut at <paramref name="fileLength"/>) is in the page cache, by
    /// <c>cachestat</c>, which counts a range's cached pages without mapping the file: on a warm start, where every
    /// range is cached, one system call per range instead of the mapping, <c>mincore</c> and unmapping of
    /// <see cref="TryGetRuns"/>. <see langword="null"/> where the kernel does not offer it.
    /// </summary>
    public static bool? IsCachedLinux(SafeFileHandle handle, long offset, long length, long fileLength)
    {
        if (s_cachestatRefused)
        {
            return null;
        }

        long pageSize = Environment.SystemPageSize;
        long start = offset & ~(pageSize - 1);
        long end = Math.Min(offset + length, fileLength);
        if (end <= start)
        {
            return true;
        }

        var range = new Interop.CachestatRange { Offset = (ulong)start, Length = (ulong)(end - start) };
        Interop.CachestatResult result;
        if (Interop.Cachestat((int)handle.DangerousGetHandle(), &range, &result) != 0)
        {
            int errno = Marshal.GetLastPInvokeError();
            if (errno != Interop.EINTR)
            {
                s_cachestatRefused = true;
            }

            return null;
        }

        return (long)result.Cached >= (end - start + pageSize - 1) / pageSize;
    }
}
