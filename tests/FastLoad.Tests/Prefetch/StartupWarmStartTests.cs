using FastLoad.Prefetch;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Prefetch;

/// <summary>
/// A start that has read next to nothing from the disk when it begins is warm: it replays nothing and starts no thread
/// until it ends, and is still recorded. One that has read more, or where the system does not say, is replayed.
/// </summary>
public sealed class StartupWarmStartTests : PrefetchTestBase
{
    private const long Threshold = 128 * 1024;

    [LinuxFact]
    public async Task Begin_ReadLessThanTheThreshold_ReplaysNothingAndStillRecordsAtTheEnd()
    {
        string a = DataFile("a.bin", MiB);
        Write(ManifestBesideApp, ManifestOf(Build, (a, [(0, MiB)])));
        Evict(a);
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);
        using var afterReplay = new ManualResetEventSlim();
        int ranges = 0;

        StartupPrefetch prefetch = Begin(
            hooks: Hooks(afterReplay: afterReplay.Set, beforeRange: _ => Interlocked.Increment(ref ranges), diskReadBytes: Threshold - 1),
            logger: loggerFactory.CreateLogger("test"));
        bool threadRanBeforeEnd = afterReplay.Wait(TimeSpan.FromMilliseconds(500));
        long cachedBeforeEnd = Cached(a);
        await Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([a]));
        prefetch.End();
        StartupPrefetchSummary summary = await prefetch.Completion.WaitAsync(TimeSpan.FromSeconds(30));
        prefetch.Dispose();

        Assert.False(threadRanBeforeEnd);
        Assert.Equal(0, cachedBeforeEnd);
        Assert.Equal(0, Volatile.Read(ref ranges));
        Assert.Equal(StartupManifestStatus.SkippedWarm, summary.ManifestStatus);
        Assert.Equal(ManifestBesideApp, summary.ManifestPath);
        Assert.Equal(Threshold - 1, summary.DiskReadBytesAtBegin);
        Assert.Equal(0, summary.RequestedBytes);
        var logged = Assert.Single(logs.GetSnapshot(), entry => entry.Id.Id == FastLoadEventId.StartupManifestSkippedWarm);
        Assert.Contains(ManifestBesideApp, logged.Message);
        Assert.Contains($"{Threshold - 1} bytes", logged.Message);
        Assert.Equal(ManifestBesideApp, summary.RecordedPath);
        Assert.Equal([a], StartupManifest.Read(ManifestBesideApp).Files.Select(file => file.Path));
    }

    public static TheoryData<long, long?> ColdOrUnknown => new()
    {
        { Threshold, Threshold },
        { Threshold, null },
        { 0, 0 },
    };

    [LinuxTheory]
    [MemberData(nameof(ColdOrUnknown))]
    public async Task Begin_ReadAtLeastTheThresholdOrUnknown_Replays(long threshold, long? diskReadBytes)
    {
        string a = DataFile("a.bin", MiB);
        Write(ManifestBesideApp, ManifestOf(Build, (a, [(0, MiB)])));
        Evict(a);

        StartupPrefetchSummary summary = await StartAsync(new StartupPrefetchOptions { ColdStartThreshold = threshold }, diskReadBytes: diskReadBytes);

        Assert.Equal(StartupManifestStatus.Replayed, summary.ManifestStatus);
        Assert.Equal(diskReadBytes, summary.DiskReadBytesAtBegin);
        Assert.Equal(MiB, summary.RequestedBytes);
        AssertMostlyCached(MiB, Cached(a));
    }

    [LinuxFact]
    public async Task Dispose_WarmStartNeverEnded_CompletesWithoutRecording()
    {
        string a = DataFile("a.bin", MiB);
        byte[] manifest = Write(ManifestBesideApp, ManifestOf(Build, (a, [(0, MiB)])));

        StartupPrefetch prefetch = Begin(hooks: Hooks(diskReadBytes: 0));
        prefetch.Dispose();
        StartupPrefetchSummary summary = await prefetch.Completion.WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Equal(StartupManifestStatus.SkippedWarm, summary.ManifestStatus);
        Assert.Null(summary.RecordedPath);
        Assert.Equal(manifest, File.ReadAllBytes(ManifestBesideApp));
    }

    [LinuxFact]
    public void BytesSoFar_AfterReadingAnEvictedFile_GrewByAboutItsLength()
    {
        // Both getrusage's ru_inblock and /proc/self/io come from the kernel's per-task I/O accounting, an option.
        Assert.SkipUnless(File.Exists("/proc/self/io"), "This kernel keeps no per-task I/O accounting (CONFIG_TASK_IO_ACCOUNTING).");
        string a = DataFile("a.bin", 4 * MiB);
        Evict(a);

        long before = ProcessDiskReads.BytesSoFar()!.Value;
        _ = File.ReadAllBytes(a);
        long after = ProcessDiskReads.BytesSoFar()!.Value;

        Assert.True(after - before >= 4 * MiB * 15 / 16, $"{after - before} bytes read from the disk for a 4 MiB file not cached.");
    }
}
