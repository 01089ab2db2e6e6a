using System.Buffers;
using System.Runtime.Versioning;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Prefetch;

/// <summary>Which pages of a file are in the page cache (<c>mincore</c> over a mapping of the file; Linux and macOS).</summary>
[UnsupportedOSPlatform("windows")]
internal static unsafe partial class PageResidency
{
    /// <summary>
    /// Splits each of <paramref name="ranges"/> (in order, apart) of an open file into runs that are, or are not, in
    /// the page cache, appended to <paramref name="runs"/>; ranges are cut at <paramref name="fileLength"/>. One mapping
    /// and one <c>mincore</c> cover them all.
    /// </summary>
    /// <returns><see langword="false"/>, adding nothing, where the file cannot be mapped.</returns>
    public static bool TryGetRuns(SafeFileHandle handle, StartupManifestRange[] ranges, long fileLength, ResidencyRuns runs)
    {
        if (ranges.Length == 0)
        {
            return true;
        }

        long pageSize = Environment.SystemPageSize;
        long mapStart = ranges[0].Offset & ~(pageSize - 1);
        long mapEnd = Math.Min(ranges[ranges.Length - 1].End, fileLength);
        if (mapEnd <= mapStart)
        {
            return true;
        }

        long mapLength = mapEnd - mapStart;
        long pages = (mapLength + pageSize - 1) / pageSize;
        if (pages >= Array.MaxLength)
        {
            return false;
        }

        void* mapping = Interop.Mmap(null, (nuint)mapLength, Interop.ProtRead, Interop.MapShared, (int)handle.DangerousGetHandle(), mapStart);
        if (mapping == (void*)-1)
        {
            return false;
        }

        byte[] vector = ArrayPool<byte>.Shared.Rent((int)pages);
        try
        {
            fixed (byte* flags = vector)
            {
                if (Interop.Mincore(mapping, (nuint)mapLength, flags) != 0)
                {
                    return false;
                }
            }

            foreach (StartupManifestRange range in ranges)
            {
                long end = Math.Min(range.End, mapEnd);
                for (long at = range.Offset; at < end;)
                {
                    long page = (at - mapStart) / pageSize;
                    long next = Math.Min(end, mapStart + ((page + 1) * pageSize));
                    runs.Add(at, next, (vector[page] & 1) != 0);
                    at = next;
                }
            }

            return true;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(vector);
            _ = Interop.Munmap(mapping, (nuint)mapLength);
        }
    }
}
