using System.Runtime.Versioning;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Prefetch;

/// <summary>Which pages of a file are in the page cache (<c>mincore</c> over a mapping of the file; Linux and macOS).</summary>
[UnsupportedOSPlatform("windows")]
internal static unsafe partial class PageResidency
{
    /// <summary>
    /// The most pages one <c>mincore</c> asks about (16 MiB of the file at 4 KiB pages): its vector, a byte a page, is
    /// on the stack, whatever the span of the file between the first range and the last.
    /// </summary>
    private const int WindowPages = 4096;

    /// <summary>
    /// Splits each of <paramref name="ranges"/> (in order, apart) of an open file into runs that are, or are not, in
    /// the page cache, appended to <paramref name="runs"/>; ranges are cut at <paramref name="fileLength"/>. Each range
    /// is mapped and asked about on its own, a window of at most <see cref="WindowPages"/> at a time, so that memory
    /// and time follow the bytes of the ranges, not the span of a sparse file between them.
    /// </summary>
    /// <returns><see langword="false"/>, adding nothing, where the file cannot be mapped.</returns>
    public static bool TryGetRuns(SafeFileHandle handle, StartupManifestRange[] ranges, long fileLength, ResidencyRuns runs)
    {
        long pageSize = Environment.SystemPageSize;
        long windowBytes = WindowPages * pageSize;
        int countBefore = runs.Count;
        byte* vector = stackalloc byte[WindowPages];
        foreach (StartupManifestRange range in ranges)
        {
            long end = Math.Min(range.End, fileLength);
            for (long windowStart = range.Offset & ~(pageSize - 1); windowStart < end; windowStart += windowBytes)
            {
                long windowEnd = Math.Min(end, windowStart + windowBytes);
                if (!TryAddWindow(handle, windowStart, windowEnd, Math.Max(range.Offset, windowStart), pageSize, vector, runs))
                {
                    runs.Truncate(countBefore);
                    return false;
                }
            }
        }

        return true;
    }

    /// <summary>Adds the runs of <c>[from, windowEnd)</c>, asking about the pages of <c>[windowStart, windowEnd)</c> with one mapping.</summary>
    private static bool TryAddWindow(SafeFileHandle handle, long windowStart, long windowEnd, long from, long pageSize, byte* vector, ResidencyRuns runs)
    {
        long mapLength = windowEnd - windowStart;
        void* mapping = Interop.Mmap(null, (nuint)mapLength, Interop.ProtRead, Interop.MapShared, (int)handle.DangerousGetHandle(), windowStart);
        if (mapping == (void*)-1)
        {
            return false;
        }

        try
        {
            if (Interop.Mincore(mapping, (nuint)mapLength, vector) != 0)
            {
                return false;
            }

            for (long at = from; at < windowEnd;)
            {
                long page = (at - windowStart) / pageSize;
                long next = Math.Min(windowEnd, windowStart + ((page + 1) * pageSize));
                runs.Add(at, next, (vector[page] & 1) != 0);
                at = next;
            }

            return true;
        }
        finally
        {
            _ = Interop.Munmap(mapping, (nuint)mapLength);
        }
    }
}
