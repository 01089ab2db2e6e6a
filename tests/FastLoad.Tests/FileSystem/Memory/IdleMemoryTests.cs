using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reliability;

/// <summary>
/// What loads keep for the next one (free slabs, pooled blocks, io_uring rings) is there for a load that follows soon,
/// and goes back once the process has loaded nothing for a while. Process-wide: another load would keep it in use.
/// </summary>
[Collection(ProcessWide.Name)]
public class IdleMemoryTests : TempDirectoryTestBase
{
    private const long MiB = 1024 * 1024;
    private const long HeldWhenIdle = 8 * MiB;
    private static readonly TimeSpan IdleTime = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task Loads_ThenTenSecondsIdle_FastLoadHoldsAtMostEightMiB()
    {
        // Small files in slabs, files of a few hundred KiB in pooled blocks, every file held until the load ends, so
        // that the load's memory comes back all at once and what is kept is at its most (tens of MiB).
        List<string> paths = [.. Enumerable.Range(0, 600).Select(i => WriteFile($"small/f{i:D3}.bin", 1024 + (i * 97), seed: i))];
        paths.AddRange(Enumerable.Range(0, 40).Select(i => WriteFile($"medium/f{i:D2}.bin", (256 * 1024) + (i * 40_000), seed: i)));
        var loader = new FileLoader();
        for (int load = 0; load < 3; load++)
        {
            var held = new List<LoadedFile>();
            await foreach (LoadedFile file in loader.LoadAsync(FileSet.FromPaths(paths)))
            {
                held.Add(file);
            }

            Assert.Equal(paths.Count, held.Count);
            held.ForEach(file => file.Dispose());
        }

        long lastLoad = Environment.TickCount64;

        // Right after, a next load would reuse it all.
        long kept = IdleTrimmer.KeptBytes;
        Assert.True(kept > HeldWhenIdle, $"{kept / (double)MiB:F1} MiB kept right after the loads");

        // The trim frees the pools' blocks, then closes the rings: wait for both, or the bytes can be seen gone while
        // the rings are still being closed.
        while ((IdleTrimmer.KeptBytes > HeldWhenIdle || IdleRings() > 0) && Environment.TickCount64 - lastLoad < IdleTime.TotalMilliseconds)
        {
            await Task.Delay(100);
        }

        long idle = IdleTrimmer.KeptBytes;
        Assert.True(
            idle <= HeldWhenIdle,
            $"{idle / (double)MiB:F1} MiB kept {(Environment.TickCount64 - lastLoad) / 1000.0:F1} s after the last load (from {kept / (double)MiB:F1} MiB)");
        Assert.Equal(0, IdleRings());
    }

    private static int IdleRings() => OperatingSystem.IsLinux() ? IoUring.IdleCount : 0;

    [Fact]
    public void MayKeepIdle_RingOfAKernelThatChargesItToTheLockedMemoryLimit_IsNotKept()
    {
        // Linux 5.6-5.11 (no IORING_FEAT_NATIVE_WORKERS) charges a ring's memory to RLIMIT_MEMLOCK, often 64 KiB for a
        // user: a kept ring would make other processes' rings fail. 5.12 and later charge it to the memory cgroup.
        const uint SingleMmap = 1, NativeWorkers = 1 << 9;
        Assert.False(IoUring.MayKeepIdle(SingleMmap));
        Assert.True(IoUring.MayKeepIdle(SingleMmap | NativeWorkers));
    }
}
