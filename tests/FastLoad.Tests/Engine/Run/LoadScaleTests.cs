using System.Diagnostics;
using System.Globalization;
using System.Text;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reliability;

/// <summary>
/// Loads far beyond the everyday: 100,000 files in one folder, a set 64 times the memory budget. They count
/// descriptors and resident memory of the whole process, so they run alone. The figures go to the test output
/// (docs/reliability.md quotes them); no timing is asserted, the machine is shared. The files live on tmpfs where
/// there is one: the loader is under test here, not the disk's speed at creating and deleting 100,000 files.
/// </summary>
[Collection(ProcessWide.Name)]
public class LoadScaleTests(ITestOutputHelper output) : TempDirectoryTestBase(MemoryBackedTempPath)
{
    private const long MiB = 1024 * 1024;
    private const long Slack = 64 * MiB;
    private const long Budget = 64 * MiB;
    private const long LargeSetBytes = 4096 * MiB;

    // Beyond the reads themselves: the descriptor listing, the runtime's own (epoll, eventfd), a margin.
    private const int DescriptorConstant = 16;

    private static readonly TimeSpan NoHang = TimeSpan.FromMinutes(3);

    [LinuxFact("/proc/self/fd, and a tmpfs for 100,000 files")]
    public async Task LoadAsync_HundredThousandFilesInOneFolder_DeliversEveryOneOnceWithinDescriptorBound()
    {
        const int Count = 100_000;
        var started = Stopwatch.StartNew();
        Parallel.For(0, Count, i => File.WriteAllBytes(Path.Combine(Root, Name(i)), Encoding.ASCII.GetBytes(Name(i))));
        TimeSpan created = started.Elapsed;
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool });
        var seen = new HashSet<string>(StringComparer.Ordinal);
        int baseline = ProcessWide.OpenDescriptorsBaseline();
        int peakDescriptors = baseline;

        LoadSummary summary = await loader.LoadAsync(
            FileSet.FromDirectory(Root),
            (file, _) =>
            {
                string name = Path.GetFileName(file.Path);
                Assert.Equal(name, Encoding.ASCII.GetString(file.Data.Span));
                Assert.True(seen.Add(name), $"{name} delivered twice");
                if (seen.Count % 64 == 0)
                {
                    peakDescriptors = Math.Max(peakDescriptors, ProcessWide.OpenDescriptors());
                }

                return ValueTask.CompletedTask;
            }).WaitAsync(NoHang);

        Assert.Equal(Count, summary.FileCount);
        Assert.Equal(Count, seen.Count);
        Assert.Empty(summary.Failures);
        Assert.InRange(peakDescriptors - baseline, 0, summary.DegreeOfParallelism + DescriptorConstant);
        pool.AssertAllReturned();
        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"100,000 files: created in {created.TotalSeconds:F1} s, loaded in {summary.Elapsed.TotalSeconds:F1} s at parallelism {summary.DegreeOfParallelism}; descriptors {baseline} before, peak {peakDescriptors}"));
    }

    [LinuxFact("/proc/self/fd and sparse files")]
    public async Task LoadAsync_SetSixtyFourTimesTheBudget_BytesInFlightStayWithinBudget()
    {
        List<string> paths = CreateSparseSet(1, 8);
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { MemoryBudget = Budget, BufferPool = pool, MaxDegreeOfParallelism = 32 });
        int baseline = ProcessWide.OpenDescriptorsBaseline();
        int peakDescriptors = baseline;

        LoadSummary summary = await loader.LoadAsync(
            FileSet.FromPaths(paths),
            (file, _) =>
            {
                peakDescriptors = Math.Max(peakDescriptors, ProcessWide.OpenDescriptors());
                return ValueTask.CompletedTask;
            }).WaitAsync(NoHang);

        Assert.Equal(paths.Count, summary.FileCount);
        Assert.Equal(LargeSetBytes, summary.ByteCount);
        Assert.InRange(summary.PeakBytesInFlight, 1, Budget);

        // The loader's bytes plus the files handed over: the one being consumed and the one offered next.
        Assert.InRange(pool.PeakRequestedOutstanding, 1, Budget + Slack);
        Assert.InRange(peakDescriptors - baseline, 0, summary.DegreeOfParallelism + DescriptorConstant);
        pool.AssertAllReturned();
        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"4 GiB through 64 MiB: {summary.Elapsed.TotalSeconds:F1} s, peak in flight {summary.PeakBytesInFlight / MiB} MiB, peak rented {pool.PeakRequestedOutstanding / MiB} MiB, descriptors {baseline} before, peak {peakDescriptors}"));
    }

    [LinuxTheory("/proc/self/status for the resident set, and sparse files")]
    [InlineData(4, 4)]
    [InlineData(1, 8)]
    public async Task LoadAsync_SetSixtyFourTimesTheBudgetWithTheSharedPool_PeakResidentGrowsLessThanBudgetPlus64MiB(int minMiB, int maxMiB)
    {
        List<string> paths = CreateSparseSet(minMiB, maxMiB);
        var loader = new FileLoader(new FileLoaderOptions { MemoryBudget = Budget });
        // Earlier tests leave free memory committed in the heap; give it back so the growth measured is this load's.
        GC.WaitForPendingFinalizers();
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Aggressive, blocking: true, compacting: true);
        Assert.True(ProcessWide.TryResetPeakResident(), "/proc/self/clear_refs could not reset the peak resident set");
        long before = ProcessWide.ResidentBytes();

        LoadSummary summary = await loader.LoadAsync(FileSet.FromPaths(paths), (_, _) => ValueTask.CompletedTask).WaitAsync(NoHang);

        long growth = ProcessWide.PeakResidentBytes() - before;
        Assert.Equal(LargeSetBytes, summary.ByteCount);
        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"4 GiB in files of {minMiB}-{maxMiB} MiB through 64 MiB, ArrayPool.Shared: {summary.Elapsed.TotalSeconds:F1} s, resident {before / MiB} MiB before, peak resident growth {growth / MiB} MiB"));
        Assert.InRange(growth, 0, Budget + Slack);
    }

    private static string Name(int index) => index.ToString("D6", CultureInfo.InvariantCulture);

    /// <summary>
    /// 4 GiB in files of <paramref name="minMiB"/> to <paramref name="maxMiB"/> MiB, sparse: the kernel reads holes as zeros without touching the disk, so the test
    /// measures the loader's memory, not the disk, and leaves no 4 GiB behind if cleanup fails.
    /// </summary>
    private List<string> CreateSparseSet(int minMiB, int maxMiB)
    {
        var random = new Random(42);
        var paths = new List<string>();
        long total = 0;
        while (total < LargeSetBytes)
        {
            long length = Math.Min(random.Next(minMiB, maxMiB + 1) * MiB, LargeSetBytes - total);
            string path = Path.Combine(Root, $"large{paths.Count:D4}.bin");
            using (var stream = new FileStream(path, FileMode.CreateNew))
            {
                stream.SetLength(length);
            }

            paths.Add(path);
            total += length;
        }

        return paths;
    }
}
