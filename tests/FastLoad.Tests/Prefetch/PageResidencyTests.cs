using System.Runtime.Versioning;
using FastLoad.FileSystem;
using FastLoad.Prefetch;
using FastLoad.Tests.Infrastructure;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Tests.Prefetch;

/// <summary>
/// The residency check that replaces <c>cachestat</c> where the kernel refuses it (before Linux 6.5): its memory and
/// its answers follow the ranges asked about, not the span of the file between them.
/// </summary>
[SupportedOSPlatform("linux")]
public sealed class PageResidencyTests : PrefetchTestBase
{
    private const long GiB = 1024L * 1024 * 1024;
    private const int Touched = 64 * 1024;

    [LinuxFact]
    public void TryGetRuns_SparseFileTouchedAtBothEnds_AllocatesLittleAndFindsTheTouchedPages()
    {
        string path = Path.Combine(DataDirectory, "sparse.bin");
        long length = 256 * GiB;
        using (var stream = new FileStream(path, FileMode.CreateNew, FileAccess.Write))
        {
            stream.SetLength(length);
            stream.Write(new byte[Touched]);
            stream.Position = length - Touched;
            stream.Write(new byte[Touched]);
        }

        using SafeFileHandle handle = ReadableFile.Open(path, out _);
        _ = RandomAccess.Read(handle, new byte[Touched], 0);
        _ = RandomAccess.Read(handle, new byte[Touched], length - Touched);
        var runs = new ResidencyRuns();
        StartupManifestRange[] ranges = [new(0, 2 * Touched), new(length - Touched, Touched)];

        long allocatedBefore = GC.GetAllocatedBytesForCurrentThread();
        bool answered = PageResidency.TryGetRuns(handle, ranges, length, runs);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - allocatedBefore;

        Assert.True(answered);
        Assert.InRange(allocated, 0, 64 * 1024); // The span's vector would be 64 MiB, a byte for each of its pages.
        long resident = 0, missing = 0;
        for (int i = 0; i < runs.Count; i++)
        {
            _ = runs.IsResident(i) ? resident += runs.End(i) - runs.Start(i) : missing += runs.End(i) - runs.Start(i);
        }

        Assert.Equal(3 * Touched, resident + missing);
        Assert.InRange(resident, Touched, 2 * Touched); // The touched pages; the hole after the first may be cached too (zeros, read ahead).
    }

    [LinuxFact]
    public void TryGetRuns_RangeLongerThanAWindow_IsAnsweredWhole()
    {
        string path = DataFile("long.bin", 40 * MiB);
        Evict(path);
        using SafeFileHandle handle = ReadableFile.Open(path, out _);
        _ = RandomAccess.Read(handle, new byte[MiB], 20 * MiB);
        var runs = new ResidencyRuns();

        Assert.True(PageResidency.TryGetRuns(handle, [new StartupManifestRange(100, (40 * MiB) - 100)], 40 * MiB, runs));

        Assert.Equal(100, runs.Start(0));
        Assert.Equal(40 * MiB, runs.End(runs.Count - 1));
        for (int i = 1; i < runs.Count; i++)
        {
            Assert.Equal(runs.End(i - 1), runs.Start(i));
        }

        AssertMostlyCached(MiB, Cached(path, 20 * MiB, MiB));
    }
}
