using FastLoad.Tests.Infrastructure;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Tests.Prefetch;

/// <summary>The replay: what it reads into the page cache, what it leaves alone, and where it stops.</summary>
public sealed class StartupReplayTests : PrefetchTestBase
{
    [LinuxFact]
    public async Task ReplayAsync_EvictedFiles_CachesExactlyTheRecordedRanges()
    {
        string partly = DataFile("partly.bin", 2 * MiB);
        string whole = DataFile("whole.bin", MiB + 100);
        string absent = DataFile("absent.bin", MiB);
        string manifest = Path.Combine(Root, "m.startup-manifest");
        Write(manifest, ManifestOf(Build, (partly, [(0, 256 * 1024), (MiB, 64 * 1024)]), (whole, [(0, MiB + 100)])));
        Evict(partly, whole, absent);

        StartupPrefetchSummary summary = await StartupPrefetch.ReplayAsync(manifest);

        Assert.Equal(StartupManifestStatus.Replayed, summary.ManifestStatus);
        Assert.Equal(2, summary.FileCount);
        Assert.Equal((256 * 1024) + (64 * 1024) + MiB + 100, summary.RequestedBytes);
        Assert.Equal(0, summary.CachedBytes);
        AssertMostlyCached(256 * 1024, Cached(partly, 0, 256 * 1024));
        AssertMostlyCached(64 * 1024, Cached(partly, MiB, 64 * 1024));
        Assert.Equal(0, Cached(partly, 256 * 1024, MiB - (256 * 1024))); // Between the ranges: the replay reads no more.
        Assert.Equal(0, Cached(partly, MiB + (64 * 1024), MiB - (64 * 1024)));
        AssertMostlyCached(MiB + 100, Cached(whole));
        Assert.Equal(0, Cached(absent));
    }

    [LinuxFact]
    public async Task ReplayAsync_EverythingCached_AsksForNothing()
    {
        string a = DataFile("a.bin", MiB);
        string b = DataFile("b.bin", 300_000);
        string manifest = Path.Combine(Root, "m.startup-manifest");
        Write(manifest, ManifestOf(Build, (a, [(0, MiB)]), (b, [(4096, 8192)])));
        _ = File.ReadAllBytes(a);
        _ = File.ReadAllBytes(b);

        StartupPrefetchSummary summary = await StartupPrefetch.ReplayAsync(manifest);

        Assert.Equal(0, summary.RequestedBytes);
        Assert.Equal(MiB + 8192, summary.CachedBytes);
        Assert.Equal(2, summary.FileCount);
    }

    [LinuxFact]
    public async Task ReplayAsync_BudgetSmallerThanManifest_StopsAtTheBudgetInManifestOrder()
    {
        string[] files = [DataFile("1.bin", MiB), DataFile("2.bin", MiB), DataFile("3.bin", MiB), DataFile("4.bin", MiB)];
        string manifest = Path.Combine(Root, "m.startup-manifest");
        Write(manifest, ManifestOf(Build, [.. files.Select(file => (file, new (long, long)[] { (0, MiB) }))]));
        Evict(files);

        StartupPrefetchSummary summary = await StartupPrefetch.ReplayAsync(manifest, new StartupPrefetchOptions { ReplayBudget = MiB + (MiB / 2) });

        Assert.True(summary.BudgetReached);
        Assert.Equal(MiB + (MiB / 2), summary.RequestedBytes);
        AssertMostlyCached(MiB, Cached(files[0]));
        AssertMostlyCached(MiB / 2, Cached(files[1], 0, MiB / 2));
        Assert.Equal(0, Cached(files[1], MiB / 2, MiB / 2));
        Assert.Equal(0, Cached(files[2]));
        Assert.Equal(0, Cached(files[3]));
    }

    [LinuxFact]
    public async Task ReplayAsync_FilesWithPlacesOfFirstUse_ReadsThemInThatOrderThenTheOthersInPathOrder()
    {
        string[] files = [DataFile("a.dll", MiB), DataFile("b.dll", MiB), DataFile("c.dll", MiB), DataFile("d.dll", MiB), DataFile("e.dll", MiB)];
        int[] places = [0, 3, 0, 0, 1]; // e, then b; then a, c, d by path.
        string manifest = Path.Combine(Root, "m.startup-manifest");
        StartupManifest recorded = ManifestOf(Build, [.. files.Select(file => (file, new (long, long)[] { (0, MiB) }))]);
        Write(manifest, WithPlaces(recorded, (_, i) => places[i]));
        Evict(files);

        // Room for three files and a half.
        StartupPrefetchSummary summary = await StartupPrefetch.ReplayAsync(manifest, new StartupPrefetchOptions { ReplayBudget = (3 * MiB) + (MiB / 2) });

        Assert.True(summary.BudgetReached);
        AssertMostlyCached(MiB, Cached(files[4]));
        AssertMostlyCached(MiB, Cached(files[1]));
        AssertMostlyCached(MiB, Cached(files[0]));
        AssertMostlyCached(MiB / 2, Cached(files[2], 0, MiB / 2));
        Assert.Equal(0, Cached(files[2], MiB / 2, MiB / 2));
        Assert.Equal(0, Cached(files[3]));
    }

    [LinuxFact]
    public async Task ReplayAsync_RangePartlyCached_AsksOnlyForItsMissingPages()
    {
        string a = DataFile("a.bin", 2 * MiB);
        string manifest = Path.Combine(Root, "m.startup-manifest");
        Write(manifest, ManifestOf(Build, (a, [(0, 2 * MiB)])));
        Evict(a);
        using (SafeFileHandle handle = File.OpenHandle(a, options: FileOptions.RandomAccess))
        {
            // Random access: the kernel reads the pages asked for and no read-ahead beyond them.
            Assert.Equal(MiB / 2, RandomAccess.Read(handle, new byte[MiB / 2], MiB / 2));
        }

        StartupPrefetchSummary summary = await StartupPrefetch.ReplayAsync(manifest);

        Assert.InRange(summary.RequestedBytes, MiB, (3 * MiB) / 2);
        Assert.Equal(2 * MiB, summary.RequestedBytes + summary.CachedBytes);
        AssertMostlyCached(2 * MiB, Cached(a));
    }

    [LinuxFact]
    public async Task ReplayAsync_FileChangedOrGoneSinceRecorded_SkipsItAndReadsTheRest()
    {
        string grown = DataFile("grown.bin", MiB);
        string touched = DataFile("touched.bin", MiB);
        string gone = DataFile("gone.bin", MiB);
        string kept = DataFile("kept.bin", MiB);
        string manifest = Path.Combine(Root, "m.startup-manifest");
        Write(manifest, ManifestOf(Build, (grown, [(0, MiB)]), (touched, [(0, MiB)]), (gone, [(0, MiB)]), (kept, [(0, MiB)])));
        await File.AppendAllTextAsync(grown, "more");
        File.SetLastWriteTimeUtc(touched, File.GetLastWriteTimeUtc(touched).AddSeconds(-10));
        File.Delete(gone);
        Evict(grown, touched, kept);

        StartupPrefetchSummary summary = await StartupPrefetch.ReplayAsync(manifest);

        Assert.Equal(3, summary.ChangedFileCount);
        Assert.Equal(1, summary.FileCount);
        Assert.Equal(MiB, summary.RequestedBytes);
        Assert.Equal(0, Cached(grown));
        Assert.Equal(0, Cached(touched));
        AssertMostlyCached(MiB, Cached(kept));
    }

    [Fact]
    public async Task ReplayAsync_NoManifest_ThrowsFileNotFound()
    {
        string missing = Path.Combine(Root, "none.startup-manifest");

        var ex = await Assert.ThrowsAsync<FileNotFoundException>(() => StartupPrefetch.ReplayAsync(missing));

        Assert.Contains(missing, ex.Message);
    }

    [LinuxFact]
    public async Task Begin_ManifestOfThisBuild_ReplaysItAtOnceInTheBackground()
    {
        string a = DataFile("a.bin", 2 * MiB);
        Write(ManifestBesideApp, ManifestOf(Build, (a, [(0, 2 * MiB)])));
        Evict(a);

        StartupPrefetchSummary summary = await StartAsync();

        Assert.Equal(StartupManifestStatus.Replayed, summary.ManifestStatus);
        Assert.Equal(ManifestBesideApp, summary.ManifestPath);
        Assert.Equal(2 * MiB, summary.RequestedBytes);
        Assert.False(summary.StoppedByEnd);
        AssertMostlyCached(2 * MiB, Cached(a));
    }

    [LinuxFact]
    public async Task End_WhileReplaying_StopsBeforeTheNextRangeAndStillRecords()
    {
        string[] files = [DataFile("1.bin", MiB), DataFile("2.bin", MiB), DataFile("3.bin", MiB)];
        Write(ManifestBesideApp, ManifestOf(Build, [.. files.Select(file => (file, new (long, long)[] { (0, MiB) }))]));
        Evict(files);
        using var atSecondRange = new ManualResetEventSlim();
        using var resume = new ManualResetEventSlim();
        StartupPrefetch prefetch = Begin(hooks: Hooks(beforeRange: range =>
        {
            if (range == 1)
            {
                atSecondRange.Set();
                resume.Wait(TimeSpan.FromSeconds(30));
            }
        }));

        Assert.True(atSecondRange.Wait(TimeSpan.FromSeconds(30)));
        prefetch.End();
        resume.Set();
        StartupPrefetchSummary summary = await prefetch.Completion.WaitAsync(TimeSpan.FromSeconds(30));
        prefetch.Dispose();

        Assert.True(summary.StoppedByEnd);
        Assert.Equal(MiB, summary.RequestedBytes);
        Assert.Equal(0, Cached(files[1]));
        Assert.Equal(0, Cached(files[2]));
        Assert.Equal(ManifestBesideApp, summary.RecordedPath);
    }

    [LinuxFact]
    public async Task Begin_ReplayBudgetZero_RecordsWithoutReplaying()
    {
        string a = DataFile("a.bin", MiB);
        Write(ManifestBesideApp, ManifestOf(Build, (a, [(0, MiB)])));
        Evict(a);

        StartupPrefetchSummary summary = await StartAsync(new StartupPrefetchOptions { ReplayBudget = 0 });

        Assert.Equal(StartupManifestStatus.NotReplayed, summary.ManifestStatus);
        Assert.Equal(0, summary.RequestedBytes);
        Assert.Equal(0, Cached(a));
    }
}
