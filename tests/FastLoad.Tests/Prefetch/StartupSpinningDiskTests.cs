using System.Diagnostics;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Prefetch;

/// <summary>
/// Where the application lies on a spinning disk, <c>Begin</c> returns once the replay has read the manifest: the
/// application's own reads beside the replay would make the disk seek between the two. Elsewhere, or when told not to
/// wait, it returns at once.
/// </summary>
public class StartupSpinningDiskTests : PrefetchTestBase
{
    [LinuxFact]
    public async Task Begin_AppOnASpinningDisk_ReturnsOnceTheManifestIsRead()
    {
        string[] files = ThreeEvictedFiles();
        int ranges = 0;

        StartupPrefetch prefetch = Begin(hooks: Hooks(beforeRange: _ => Interlocked.Increment(ref ranges), appOnSpinningDisk: true));

        Assert.Equal(3, Volatile.Read(ref ranges));
        Assert.All(files, file => AssertMostlyCached(MiB, Cached(file)));
        prefetch.End();
        StartupPrefetchSummary summary = await prefetch.Completion.WaitAsync(TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken);
        prefetch.Dispose();
        Assert.Equal(3 * MiB, summary.RequestedBytes);
    }

    [LinuxTheory]
    [InlineData(true, false)]  // on a spinning disk, told not to wait
    [InlineData(false, true)]  // elsewhere
    public async Task Begin_NotToWait_ReturnsWhileTheReplayReads(bool appOnSpinningDisk, bool waitOnSpinningDisk)
    {
        ThreeEvictedFiles();
        using var resume = new ManualResetEventSlim();
        int ranges = 0;
        var options = new StartupPrefetchOptions { WaitOnSpinningDisk = waitOnSpinningDisk };
        var begun = Stopwatch.StartNew();

        StartupPrefetch prefetch = Begin(options, Hooks(
            beforeRange: _ =>
            {
                resume.Wait(TimeSpan.FromSeconds(30));
                Interlocked.Increment(ref ranges);
            },
            appOnSpinningDisk: appOnSpinningDisk));

        // Returned while the replay is held at its first range: not after waiting for it (up to 10 s).
        Assert.Equal(0, Volatile.Read(ref ranges));
        Assert.True(begun.Elapsed < TimeSpan.FromSeconds(5), $"Begin took {begun.Elapsed}.");
        resume.Set();
        prefetch.End();
        StartupPrefetchSummary summary = await prefetch.Completion.WaitAsync(TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken);
        prefetch.Dispose();
        Assert.Equal(StartupManifestStatus.Replayed, summary.ManifestStatus);
    }

    private string[] ThreeEvictedFiles()
    {
        string[] files = [DataFile("1.bin", MiB, seed: 1), DataFile("2.bin", MiB, seed: 2), DataFile("3.bin", MiB, seed: 3)];
        Write(ManifestBesideApp, ManifestOf(Build, [.. files.Select(file => (file, new (long, long)[] { (0, MiB) }))]));
        Evict(files);
        Assert.SkipWhen(Cached(files[0]) > 0, "The temporary folder's file system keeps pages it was told to drop (tmpfs, say): nothing to replay.");
        return files;
    }
}
