using System.Runtime.InteropServices;
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
    /// <returns>The mappings, for <see cref="SharedObjectsInLoadOrderLinux"/>; empty where <c>/proc/self/maps</c> cannot be read.</returns>
    [SupportedOSPlatform("linux")]
    private static unsafe List<Mapping> AddMappedFilesLinux(Dictionary<string, Candidate> candidates)
    {
        List<Mapping> mappings;
        try
        {
            mappings = ProcessMaps.Read();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return [];
        }

        int fd = Interop.Open("/proc/self/pagemap", Interop.OpenReadOnly | Interop.OpenCloseOnExec, 0);
        if (fd < 0)
        {
            foreach (string path in mappings.Select(mapping => mapping.Path).Distinct(StringComparer.Ordinal))
            {
                AddCached(Add(candidates, path, Mapped), path, whole: false);
            }

            return mappings;
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

        return mappings;
    }

    /// <summary>
    /// The files of the executable and the shared libraries of this process, in the order the dynamic linker loaded
    /// them (its list of objects, which <c>dl_iterate_phdr</c> walks), each named as <paramref name="mappings"/> name
    /// the mapping that holds its first segment; those are the paths the manifest keeps. Empty in a 32-bit process.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private static unsafe List<string> SharedObjectsInLoadOrderLinux(List<Mapping> mappings)
    {
        var files = new List<string>();
        if (IntPtr.Size != sizeof(ulong) || mappings.Count == 0)
        {
            return files;
        }

        var segments = new List<ulong>();
        GCHandle handle = GCHandle.Alloc(segments);
        try
        {
            _ = Interop.IterateSharedObjects(&AddFirstSegment, (void*)GCHandle.ToIntPtr(handle));
        }
        finally
        {
            handle.Free();
        }

        foreach (ulong address in segments)
        {
            foreach (Mapping mapping in mappings)
            {
                if (mapping.Start <= address && address < mapping.End)
                {
                    if (!files.Contains(mapping.Path))
                    {
                        files.Add(mapping.Path);
                    }

                    break;
                }
            }
        }

        return files;
    }

    /// <summary>The callback of <see cref="SharedObjectsInLoadOrderLinux"/>: adds where the object's first loaded segment is. Throws nothing.</summary>
    [UnmanagedCallersOnly]
    private static unsafe int AddFirstSegment(Interop.SharedObjectInfo64* info, nuint size, void* data)
    {
        var segments = (List<ulong>)GCHandle.FromIntPtr((nint)data).Target!;
        for (int i = 0; i < info->ProgramHeaderCount; i++)
        {
            if (info->ProgramHeaders[i].Type == Interop.ProgramHeaderLoad)
            {
                segments.Add(info->LoadAddress + info->ProgramHeaders[i].VirtualAddress);
                break;
            }
        }

        return 0;
    }

    private static void AddWidened(RangeSet ranges, long start, long end) =>
        ranges.Add(start & ~(MappedGranularity - 1), (end + MappedGranularity - 1) & ~(MappedGranularity - 1));
}
