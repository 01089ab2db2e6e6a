using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using FastLoad.FileSystem;
using FastLoad.Prefetch;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Prefetch;

/// <summary>
/// The replay holds few descriptors, never the application's last ones, and tells a file that changed from one that
/// could not be opened. Run alone: a test here lowers the process's descriptor limit.
/// </summary>
[Collection(ProcessWide.Name)]
[SupportedOSPlatform("linux")]
public sealed partial class StartupReplayDescriptorTests : PrefetchTestBase
{
    private const int FileLength = 8192;

    [LinuxFact]
    public void Run_ManyUncachedFiles_HoldsAtMostTheBoundAtOnce()
    {
        string[] files = ManyFiles(300);
        int mostHeld = 0;

        ReplayOutcome outcome = Replay(files, _ => mostHeld = Math.Max(mostHeld, HeldDataDescriptors()));

        Assert.Equal(files.Length, outcome.FileCount);
        Assert.Equal(0, outcome.UnopenedFileCount);
        Assert.Equal(files.Length * (long)FileLength, outcome.RequestedBytes);
        Assert.InRange(mostHeld, 1, 32);
        Assert.Equal(0, HeldDataDescriptors());
    }

    [LinuxFact]
    public void Run_FewDescriptorsLeftUnderTheLimit_LeavesMostOfThemToTheApplication()
    {
        string[] files = ManyFiles(300);
        int mostHeld = 0, applicationOpenFailures = 0;
        string probe = DataFile("probe.bin", 16);
        Interop.ResourceLimit before = GetLimit();
        int open = Directory.GetFileSystemEntries("/proc/self/fd").Length;
        SetLimit(before with { Current = (ulong)(open + 40) });
        ReplayOutcome outcome;
        try
        {
            outcome = Replay(files, _ =>
            {
                mostHeld = Math.Max(mostHeld, HeldDataDescriptors());

                // The application opens twenty files at once in the middle of the replay.
                var opened = new List<FileStream>();
                try
                {
                    for (int i = 0; i < 20; i++)
                    {
                        opened.Add(File.OpenRead(probe));
                    }
                }
                catch (IOException)
                {
                    applicationOpenFailures++;
                }
                finally
                {
                    opened.ForEach(stream => stream.Dispose());
                }
            });
        }
        finally
        {
            SetLimit(before);
        }

        Assert.Equal(0, applicationOpenFailures);
        Assert.InRange(mostHeld, 1, 10); // A quarter of the 40 or so left.
        Assert.Equal(files.Length, outcome.FileCount);
        Assert.Equal(0, outcome.UnopenedFileCount);
        Assert.Equal(0, outcome.ChangedFileCount);
    }

    [LinuxFact]
    public void Run_NoDescriptorToSpare_CountsTheFilesAsUnopenedNotChanged()
    {
        string[] files = ManyFiles(5);
        Interop.ResourceLimit before = GetLimit();
        int open = Directory.GetFileSystemEntries("/proc/self/fd").Length;
        SetLimit(before with { Current = (ulong)open + 2 });
        ReplayOutcome outcome;
        try
        {
            outcome = Replay(files, _ => { });
        }
        finally
        {
            SetLimit(before);
        }

        Assert.Equal(0, outcome.FileCount);
        Assert.Equal(5, outcome.UnopenedFileCount);
        Assert.Equal(0, outcome.ChangedFileCount);
    }

    [LinuxFact]
    public async Task ReplayAsync_ChangedGoneAndUnopenableFiles_AreCountedApart()
    {
        string kept = DataFile("kept.bin", FileLength);
        string changed = DataFile("changed.bin", FileLength);
        string gone = DataFile("gone.bin", FileLength);
        string loop = Path.Combine(DataDirectory, "loop.bin");
        File.CreateSymbolicLink(loop, loop); // Opened: ELOOP, whoever asks, root too.
        StartupManifest recorded = ManifestOf(Build, (kept, [(0, FileLength)]), (changed, [(0, FileLength)]), (gone, [(0, FileLength)]));
        var withLoop = new StartupManifest(Build, [.. recorded.FileArray.Append(new StartupManifestFile(loop, FileLength, 0, [new StartupManifestRange(0, FileLength)]))
            .OrderBy(file => file.Path, StringComparer.Ordinal)]);
        string manifest = Path.Combine(Root, "m.startup-manifest");
        Write(manifest, withLoop);
        File.AppendAllText(changed, "more");
        File.Delete(gone);
        Evict(kept);

        StartupPrefetchSummary summary = await StartupPrefetch.ReplayAsync(manifest);

        Assert.Equal(1, summary.FileCount);
        Assert.Equal(2, summary.ChangedFileCount);
        Assert.Equal(1, summary.UnopenedFileCount);
    }

    private string[] ManyFiles(int count)
    {
        string[] files = [.. Enumerable.Range(0, count).Select(i => DataFile($"{i:D4}.bin", FileLength, seed: i))];
        Evict(files);
        return files;
    }

    private ReplayOutcome Replay(string[] files, Action<int> beforeRange)
    {
        StartupManifest manifest = ManifestOf(Build, [.. files.Select(file => (file, new (long, long)[] { (0, FileLength) }))]);
        PrefetchTestHooks hooks = Hooks(beforeRange: beforeRange);
        return new ManifestReplay(manifest, long.MaxValue, hooks, CancellationToken.None).Run();
    }

    /// <summary>Descriptors of this process open on the made-up application's data files.</summary>
    private int HeldDataDescriptors() => Directory.GetFileSystemEntries("/proc/self/fd").Count(descriptor =>
    {
        try
        {
            return new FileInfo(descriptor).LinkTarget?.StartsWith(DataDirectory, StringComparison.Ordinal) == true;
        }
        catch (IOException)
        {
            return false; // Closed meanwhile.
        }
    });

    private static unsafe Interop.ResourceLimit GetLimit()
    {
        Interop.ResourceLimit limit;
        Assert.Equal(0, Interop.GetResourceLimit(Interop.ResourceLimitOpenFiles, &limit));
        return limit;
    }

    private static unsafe void SetLimit(Interop.ResourceLimit limit) => Assert.Equal(0, SetResourceLimit(Interop.ResourceLimitOpenFiles, &limit));

    [LibraryImport("libc", EntryPoint = "setrlimit", SetLastError = true)]
    private static unsafe partial int SetResourceLimit(int resource, Interop.ResourceLimit* limit);
}
