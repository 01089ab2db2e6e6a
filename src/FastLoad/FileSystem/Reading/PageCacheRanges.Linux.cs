using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

/// <summary>How much of a range of an open file the page cache holds, without reading or mapping it (Linux).</summary>
internal static unsafe class PageCacheRanges
{
    // Set once cachestat is refused (a kernel before 6.5, a seccomp profile that does not know it): mincore from then on.
    private static volatile bool s_cachestatRefused;

    /// <summary>
    /// How much of <c>[offset, offset + length)</c> (cut at <paramref name="fileLength"/>) is in the page cache, by
    /// <c>cachestat</c>, which counts a range's cached pages without mapping the file or reading it: one system call per
    /// range, where a mapping needs <c>mincore</c> and an unmapping too, and a read that must not wait still starts the
    /// device's reads. <see cref="RangeCaching.Unknown"/> where the kernel does not offer it.
    /// </summary>
    public static RangeCaching CachingLinux(SafeFileHandle handle, long offset, long length, long fileLength)
    {
        if (s_cachestatRefused)
        {
            return RangeCaching.Unknown;
        }

        long pageSize = Environment.SystemPageSize;
        long start = offset & ~(pageSize - 1);
        long end = Math.Min(offset + length, fileLength);
        if (end <= start)
        {
            return RangeCaching.All;
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

            return RangeCaching.Unknown;
        }

        long pages = (end - start + pageSize - 1) / pageSize;
        return (long)result.Cached >= pages ? RangeCaching.All : result.Cached == 0 ? RangeCaching.None : RangeCaching.Partly;
    }
}

/// <summary>How much of a range of a file the page cache holds (<see cref="PageCacheRanges.CachingLinux"/>).</summary>
internal enum RangeCaching
{
    /// <summary>Not known: the system did not say.</summary>
    Unknown,

    /// <summary>No page of it.</summary>
    None,

    /// <summary>Some of its pages, not all.</summary>
    Partly,

    /// <summary>Every page of it.</summary>
    All,
}
