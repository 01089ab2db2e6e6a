using System.Buffers;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Loading;

/// <summary>
/// What a file costs the garbage collector on the ring's path: its <see cref="LoadedFile"/> and the object owning its
/// buffer, nothing per open, read or close (no handle objects, tasks, closures or copies of the path).
/// </summary>
public class RingAllocationTests : TempDirectoryTestBase
{
    [IoUringFact]
    public async Task Load_ThroughTheRing_AllocatesOnlyTheFileAndItsBufferOwnerPerFile()
    {
        List<string> paths = [.. Enumerable.Range(0, 1200).Select(i => WriteFile($"f{i:D4}.bin", 1000 + (i % 50), seed: i))];
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = new ReusingPool() });

        // The first load warms the pool and the runtime; the ring runs the whole load on this thread (a consumer that
        // never waits), so this thread's allocation counter sees all of it.
        await LoadAsync(paths);
        long small = await LoadAsync(paths[..200]);
        long large = await LoadAsync(paths);

        double perFile = (large - small) / 1000.0;
        Assert.True(perFile <= 160, $"{perFile:F0} bytes allocated per file");

        async Task<long> LoadAsync(List<string> set)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            LoadSummary summary = await loader.LoadAsync(FileSet.FromPaths(set), static (_, _) => ValueTask.CompletedTask);
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            Assert.Equal(set.Count, summary.FileCount);
            return allocated;
        }
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
