using System.Buffers;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Loading;

/// <summary>
/// What a file costs the garbage collector on the ring's path: its <see cref="LoadedFile"/> and the object owning its
/// buffer, nothing per open, read or close (no handle objects, tasks, closures or copies of the path); and what a ring
/// costs it: no room for paths. Counted over the whole process, alone: a load's files are read on the consumer's thread
/// and on helper rings' threads, and the consumer's continuation can move to another thread.
/// </summary>
[Collection(ProcessWide.Name)]
public class RingAllocationTests : TempDirectoryTestBase
{
    [IoUringFact]
    public async Task Load_ThroughTheRing_AllocatesOnlyTheFileAndItsBufferOwnerPerFile()
    {
        List<string> paths = [.. Enumerable.Range(0, 1200).Select(i => WriteFile($"f{i:D4}.bin", 1000 + (i % 50), seed: i))];
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = new ReusingPool() });

        // The first load warms the pool and the runtime; what every load allocates once cancels out between the two.
        await AllocatedByLoadAsync(loader, paths);
        long small = await AllocatedByLoadAsync(loader, paths[..200]);
        long large = await AllocatedByLoadAsync(loader, paths);

        double perFile = (large - small) / 1000.0;
        Assert.True(perFile <= 160, $"{perFile:F0} bytes allocated per file");
    }

    [IoUringFact]
    public async Task Load_ThroughTheRing_TakesItsSlotsPathRoomFromThePoolNotTheHeap()
    {
        // 128 files: one ring of 128 slots, each with 1 KiB of room for its path. That room is native memory the
        // pool hands out again load after load (a page written for the first time costs a fault), not a new array.
        List<string> paths = [.. Enumerable.Range(0, 128).Select(i => WriteFile($"f{i:D3}.bin", 1000, seed: i))];
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = new ReusingPool() });
        await AllocatedByLoadAsync(loader, paths);

        long allocated = await AllocatedByLoadAsync(loader, paths);

        Assert.True(allocated < 64 * 1024, $"{allocated:N0} bytes allocated by a load of 128 files; the slots' paths alone would take 131,072");
    }

    private static async Task<long> AllocatedByLoadAsync(FileLoader loader, List<string> paths)
    {
        long before = GC.GetTotalAllocatedBytes(precise: true);
        LoadSummary summary = await loader.LoadAsync(FileSet.FromPaths(paths), static (_, _) => ValueTask.CompletedTask);
        long allocated = GC.GetTotalAllocatedBytes(precise: true) - before;
        Assert.Equal(paths.Count, summary.FileCount);
        return allocated;
    }

    /// <summary>A pool that keeps every array returned and hands it out again: renting allocates only when it is empty.</summary>
    private sealed class ReusingPool : ArrayPool<byte>
    {
        private readonly Stack<byte[]> _arrays = new();

        public override byte[] Rent(int minimumLength)
        {
            lock (_arrays)
            {
                if (_arrays.TryPeek(out byte[]? top) && top.Length >= minimumLength)
                {
                    return _arrays.Pop();
                }
            }

            return new byte[Math.Max(minimumLength, 1050)];
        }

        public override void Return(byte[] array, bool clearArray = false)
        {
            lock (_arrays)
            {
                _arrays.Push(array);
            }
        }
    }
}
