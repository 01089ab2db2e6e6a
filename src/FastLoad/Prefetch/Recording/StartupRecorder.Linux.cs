using System.Runtime.Versioning;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Prefetch;

internal static partial class StartupRecorder
{
    /// <summary>pagemap(5): bit 63 of a page's entry says the page is present in this process's page table.</summary>
    private const ulong PagePresent = 1UL << 63;

    private const int PagemapEntriesPerRead = 4096;

    /// <summary>
    /// Mapped ranges are widened to 64 KiB boundaries: two starts touch slightly different pages (what ran before the end,
    /// the kernel's fault-around), and a manifest that changed by a page would be written again at every start.
    /// </summary>
    private const long MappedGranularity = 64 * 1024;

    /// <summary>
    /// The pages of each mapped file that this process has touched: <c>/proc/self/pagemap</c> marks them present in
    /// its page tables (no privilege is needed for that bit). Unlike what <c>mincore</c> says is cached, this leaves
    /// out what other processes and the replay itself brought in, so a warm start records what a cold one would.
    /// Without pagemap (a sandbox may hide it), the cached pages of each mapped file stand for them.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private static unsafe void AddMappedFilesLinux(Dictionary<string, Candidate> candidates)
    {
        List<Mapping> mappings;
        try
        {
            mappings = ProcessMaps.Read();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return;
        }

        int fd = Interop.Open("/proc/self/pagemap", Interop.OpenReadOnly | Interop.OpenCloseOnExec, 0);
        if (fd < 0)
        {
            foreach (string path in mappings.Select(mapping => mapping.Path).Distinct(StringComparer.Ordinal))
            {
                AddCached(Add(candidates, path, Mapped), path, whole: false);
            }

            return;
        }

        using var pagemap = new SafeFileHandle(fd, ownsHandle: true);
        long pageSize = Environment.SystemPageSize;
        ulong[] entries = new ulong[PagemapEntriesPerRead];
        foreach (Mapping mapping in mappings)
        {
            RangeSet ranges = Add(candidates, mapping.Path, Mapped);
            long pages = (long)((mapping.End - mapping.Start) / (ulong)pageSize);
            long firstPage = (long)(mapping.Start / (ulong)pageSize);
            long runStart = -1;
            long done = 0;
            while (done < pages)
            {
                int count = (int)Math.Min(entries.Length, pages - done);
                nint read;
                fixed (ulong* buffer = entries)
                {
                    read = Interop.PRead(pagemap, (byte*)buffer, count * sizeof(ulong), (firstPage + done) * sizeof(ulong));
                }

                if (read < sizeof(ulong))
                {
                    break;
                }

                count = (int)(read / sizeof(ulong));
                for (int i = 0; i < count; i++)
                {
                    long offset = mapping.Offset + ((done + i) * pageSize);
                    bool present = (entries[i] & PagePresent) != 0;
                    if (present && runStart < 0)
                    {
                        runStart = offset;
                    }
                    else if (!present && runStart >= 0)
                    {
                        AddWidened(ranges, runStart, offset);
                        runStart = -1;
                    }
                }

                done += count;
            }

            if (runStart >= 0)
            {
                AddWidened(ranges, runStart, mapping.Offset + (done * pageSize));
            }
        }
    }

    private static void AddWidened(RangeSet ranges, long start, long end) =>
        ranges.Add(start & ~(MappedGranularity - 1), (end + MappedGranularity - 1) & ~(MappedGranularity - 1));
}
