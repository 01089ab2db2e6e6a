using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reliability;

/// <summary>
/// The io_uring rings kept open between loads (<see cref="IoUring.Rent"/>, <see cref="IoUring.Return"/>): a ring is
/// kept only when nothing of its work is left, at most one per core are kept, and every other ring is closed.
/// Process-wide: a load running beside these tests would rent and return rings of its own.
/// </summary>
[Collection(ProcessWide.Name)]
public class IdleRingTests : TempDirectoryTestBase
{
    private static int KeptAtMost => Math.Min(Environment.ProcessorCount, 16);

    [IoUringFact]
    public void Rent_AfterADrainedReturn_GivesTheSameRingBack()
    {
        IoUring ring = IoUring.Rent(8, out string? refusal) ?? throw new InvalidOperationException(refusal);
        ring.Return();

        IoUring again = IoUring.Rent(8, out _)!;
        try
        {
            Assert.Same(ring, again);
        }
        finally
        {
            again.Return();
        }

        Assert.Equal(IoUring.IdleCount, ProcessWide.IoUringDescriptors());
    }

    [IoUringFact]
    public void Rent_LargerThanAnyKept_CreatesARingThatLarge()
    {
        IoUring ring = IoUring.Rent(1024, out string? refusal) ?? throw new InvalidOperationException(refusal);
        try
        {
            Assert.True(ring.SubmissionEntries >= 1024);
        }
        finally
        {
            ring.Return();
        }
    }

    [IoUringTheory]
    [InlineData(false)]
    [InlineData(true)]
    public void Return_WithARequestNotSubmittedOrAResultNotConsumed_ClosesTheRing(bool submitted)
    {
        IoUring ring = IoUring.Rent(8, out string? refusal) ?? throw new InvalidOperationException(refusal);
        int idle = IoUring.IdleCount;

        // A close of a descriptor that is not open: harmless, and it completes at once with EBADF.
        Assert.True(ring.TryClose(-1, userData: 1));
        if (submitted)
        {
            ring.Submit(wait: true);
            Assert.True(ring.TryPeek(out _, out _));
        }

        ring.Return();

        Assert.Equal(idle, IoUring.IdleCount);
        Assert.Equal(IoUring.IdleCount, ProcessWide.IoUringDescriptors());
        IoUring next = IoUring.Rent(8, out _)!;
        Assert.NotSame(ring, next);
        next.Return();
    }

    [IoUringFact]
    public async Task Loads_ManyAtOnceThenNone_LeaveOnlyTheKeptRingsOpenAndNoMoreThanOnePerCore()
    {
        // Enough files for a ring per core in each load (128 files a ring, ReadPlan): together they hold more rings
        // than are kept.
        List<string> paths = [.. Enumerable.Range(0, 600).Select(i => WriteFile($"f{i:D3}.bin", 512 + i, seed: i))];
        var loader = new FileLoader();

        for (int round = 0; round < 3; round++)
        {
            long[] bytes = await Task.WhenAll(Enumerable.Range(0, 6).Select(_ => Task.Run(async () =>
            {
                long total = 0;
                await foreach (LoadedFile file in loader.LoadAsync(FileSet.FromPaths(paths)))
                {
                    using (file)
                    {
                        total += file.Length;
                    }
                }

                return total;
            })));

            Assert.All(bytes, total => Assert.Equal(paths.Sum(path => new FileInfo(path).Length), total));
            Assert.InRange(IoUring.IdleCount, 1, KeptAtMost);
            Assert.Equal(IoUring.IdleCount, ProcessWide.IoUringDescriptors());
        }
    }
}
