using FastLoad.Engine;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reliability;

/// <summary>
/// Loads through the io_uring ring leave no descriptor open and no buffer out however they end: completed, left after
/// one file, canceled with reads in the kernel and a large file on a reader thread, or with files that fail. The
/// ring's own descriptor is closed too.
/// </summary>
[Collection(ProcessWide.Name)]
public class RingDescriptorTests : TempDirectoryTestBase
{
    private const int Count = 400;

    public RingDescriptorTests()
    {
        for (int i = 0; i < Count; i++)
        {
            WriteFile($"f{i:D3}.bin", 1000 + (i * 37 % 20_000), seed: i);
        }

        // Large: read on a reader thread with several reads in flight, while the ring goes on with the others.
        WriteFile("m-large.bin", (16 << 20) + 4096, seed: 7);
        Native.CreateFifo(Path.Combine(Root, "zz-fifo"));
        Directory.CreateDirectory(Path.Combine(Root, "zz-directory"));
    }

    [IoUringTheory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Load_ThroughTheRingEndedAnyWay_LeavesNoDescriptorOpen(bool asFolder)
    {
        // As a folder, the walk's folders stay open for the load to open the files by name, and close with it. The
        // list names the subfolder too, which fails; the walk leaves it out.
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool, ErrorHandling = LoadErrorHandling.Collect });
        FileSet files = asFolder
            ? FileSet.FromDirectory(Root)
            : FileSet.FromPaths([.. Directory.GetFileSystemEntries(Root).Order(StringComparer.Ordinal)]);
        int baseline = ProcessWide.OpenDescriptorsBaseline();

        LoadSummary summary = await loader.LoadAsync(files, (_, _) => ValueTask.CompletedTask);
        Assert.Equal(Count + 1, summary.FileCount);
        Assert.Equal(asFolder ? 1 : 2, summary.Failures.Count);
        Assert.Equal(baseline, ProcessWide.OpenDescriptors());

        await foreach (LoadedFile file in loader.LoadAsync(files))
        {
            file.Dispose();
            break;
        }

        Assert.Equal(baseline, ProcessWide.OpenDescriptors());

        using var cancel = new CancellationTokenSource();
        int calls = 0;
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => loader.LoadAsync(
            files,
            async (_, _) =>
            {
                if (++calls == 5)
                {
                    await cancel.CancelAsync();
                }
            },
            cancel.Token));

        Assert.Equal(baseline, ProcessWide.OpenDescriptors());
        pool.AssertAllReturned();
    }

    [IoUringFact]
    public async Task Load_WithClosesStillInTheKernelWhenItEnds_LeavesNoDescriptorOpen()
    {
        // A deferred close (NFS, FUSE, CIFS) completes after its submission: a ring closed before its closes complete
        // cancels them, and their descriptors stay open for the life of the process.
        var pool = new CountingPool();
        var loader = new FileLoader(
            new FileLoaderOptions { BufferPool = pool, ErrorHandling = LoadErrorHandling.Collect }, new LoadTestHooks { DeferRingCloses = true });
        FileSet files = FileSet.FromPaths([.. Directory.GetFiles(Root, "f*.bin").Order(StringComparer.Ordinal)]);
        int baseline = ProcessWide.OpenDescriptorsBaseline();

        for (int round = 0; round < 5; round++)
        {
            await foreach (LoadedFile file in loader.LoadAsync(files))
            {
                file.Dispose();
                break;
            }

            LoadSummary summary = await loader.LoadAsync(files, (_, _) => ValueTask.CompletedTask);
            Assert.Equal(Count, summary.FileCount);
        }

        Assert.Equal(baseline, ProcessWide.OpenDescriptors());
        pool.AssertAllReturned();
    }
}
