using System.Collections.Concurrent;
using FastLoad.Engine;
using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Loading;

/// <summary>
/// A file that reports no bytes and lies on a file system that reports every file's length is empty: it arrives empty
/// without a buffer, a charge to the budget or a reader thread of its own. A pseudo file, which reports no bytes and has
/// some, is still read to its end (<see cref="PseudoFileTests"/>).
/// </summary>
public class EmptyFileTests : TempDirectoryTestBase
{
    private const int FileCount = 40;

    public static TheoryData<IoScheduling> Schedulings => [IoScheduling.IoUring, IoScheduling.DedicatedThreads, IoScheduling.ThreadPool];

    [LinuxTheory("file systems that say whether a file's length of 0 is its own")]
    [MemberData(nameof(Schedulings))]
    public async Task Load_EmptyFilesAmongOthers_EveryFileArrivesWithItsBytes(IoScheduling scheduling)
    {
        List<string> paths = WriteSet();

        var loaded = await Loads.CollectAsync(new FileLoader(new FileLoaderOptions { Scheduling = scheduling }), FileSet.FromPaths(paths));

        Assert.Equal(FileCount, loaded.Count);
        foreach ((string path, int index, byte[]? data, Exception? error) in loaded)
        {
            Assert.Null(error);
            Assert.Equal(paths[index], path);
            Assert.Equal(IsEmpty(index) ? [] : Contents(3000, index), data);
        }
    }

    [LinuxTheory("file systems that say whether a file's length of 0 is its own")]
    [MemberData(nameof(Schedulings))]
    public async Task Load_OnlyEmptyFiles_TakeNothingFromTheBudget(IoScheduling scheduling)
    {
        // Read as files of unknown length, each took a 4 KiB step of the budget and a buffer for it.
        List<string> paths = [.. Enumerable.Range(0, 200).Select(i => WriteFile($"e{i:D3}.bin", 0))];
        SkipUnlessLengthsAreTrue(paths[0]);

        LoadSummary summary = await new FileLoader(new FileLoaderOptions { Scheduling = scheduling }).LoadAsync(
            FileSet.FromPaths(paths), (file, _) => file.Length == 0 ? ValueTask.CompletedTask : throw new InvalidDataException(file.Path));

        Assert.Equal(200, summary.FileCount);
        Assert.Empty(summary.Failures);
        Assert.Equal(0, summary.PeakBytesInFlight);
    }

    [IoUringFact]
    public async Task Load_EmptyFilesThroughTheRing_NeverGoToAReaderThread()
    {
        // A file of unknown length goes to a reader thread, so that a pseudo file cannot hold up the ring's other files.
        List<string> paths = WriteSet();
        var blockingReads = new ConcurrentBag<string>();
        var loader = new FileLoader(new FileLoaderOptions(), new LoadTestHooks { OnBlockingRead = blockingReads.Add });

        LoadSummary summary = await loader.LoadAsync(FileSet.FromPaths(paths), (_, _) => ValueTask.CompletedTask);

        Assert.Equal(FileCount, summary.FileCount);
        Assert.Empty(blockingReads);
    }

    private static bool IsEmpty(int index) => index % 4 == 0;

    private static void SkipUnlessLengthsAreTrue(string path)
    {
        using FileStream file = File.OpenRead(path);
        Assert.SkipUnless(
            EmptyFiles.IsEmptyLinux((int)file.SafeFileHandle.DangerousGetHandle(), FileStatus.Get(path).DeviceId),
            "The temporary folder's file system may report 0 bytes for a file with content (FUSE): its empty files are read.");
    }

    private List<string> WriteSet()
    {
        List<string> paths = [.. Enumerable.Range(0, FileCount).Select(i => WriteFile($"f{i:D2}.bin", IsEmpty(i) ? 0 : 3000, seed: i))];
        SkipUnlessLengthsAreTrue(paths[0]);
        return paths;
    }
}
