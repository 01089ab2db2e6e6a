using System.Runtime.InteropServices;
using FastLoad.Engine;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reliability;

/// <summary>
/// The pipeline reads each device through a lane of its own. When one lane fails, the load ends with that failure only
/// once every other lane has finished the reads it had started: nothing is read into a load that has let its buffers go.
/// </summary>
public sealed class PipelineLaneFailureTests : TempDirectoryTestBase
{
    private static readonly TimeSpan NoHang = TimeSpan.FromSeconds(30);

    private readonly string _memory = Path.Combine(MemoryBackedTempPath, "fastload-lanes-" + Guid.NewGuid().ToString("N"));

    [LinuxFact] // Two devices: the temporary folder's disk and /dev/shm's memory.
    public async Task Load_OneDevicesLaneFails_EndsWithItsErrorOnlyOnceTheOtherLanesAreDone()
    {
        Assert.True(Directory.Exists("/dev/shm"));
        Directory.CreateDirectory(_memory);
        List<string> paths = [];
        for (int i = 0; i < 50; i++)
        {
            // The memory-backed files first: their lane is the first the pipeline starts and waits for.
            string path = Path.Combine(_memory, $"m{i:D2}.bin");
            File.WriteAllBytes(path, Contents(5000, i));
            paths.Add(path);
        }

        for (int i = 0; i < 300; i++)
        {
            paths.Add(WriteFile($"d{i:D3}.bin", 5000, seed: i));
        }

        var pool = new CountingPool();
        using var diskReading = new ManualResetEventSlim();
        int loadEnded = 0;
        int readsAfterTheEnd = 0;
        var hooks = new LoadTestHooks
        {
            // The memory lane, the first the pipeline starts (and the first it would wait for), fails once the disk's
            // lane is reading.
            OnLaneRead = path =>
            {
                if (path.StartsWith(_memory, StringComparison.Ordinal))
                {
                    Assert.True(diskReading.Wait(TimeSpan.FromSeconds(30)));
                    throw new InvalidOperationException("The memory lane failed.");
                }
            },

            // The disk's reads take a while, so that they are still running when the other lane fails.
            OnBlockingRead = path =>
            {
                if (path.StartsWith(Root, StringComparison.Ordinal))
                {
                    diskReading.Set();
                    Thread.Sleep(50);

                    // The read goes on from here: into a load that may have let go of its buffers and token already.
                    if (Volatile.Read(ref loadEnded) == 1)
                    {
                        Interlocked.Increment(ref readsAfterTheEnd);
                    }
                }
            },
        };
        // Physical order: the pipeline reads the whole set, each lane on threads of its own.
        var loader = new FileLoader(new FileLoaderOptions { PhysicalOrder = PhysicalOrder.On, BufferPool = pool }, hooks);

        // The enumerator is held for the whole load: a load whose readers all wait for nothing is unreachable, and its
        // enumerator's finalizer would stop it, hiding the hang (a lane waited for the slots of files its failed block
        // had dropped).
        IAsyncEnumerator<LoadedFile> files = loader.LoadAsync(FileSet.FromPaths(paths)).GetAsyncEnumerator();
        GCHandle held = GCHandle.Alloc(files);
        InvalidOperationException error;
        try
        {
            error = await Assert.ThrowsAsync<InvalidOperationException>(() => ReadAllAsync(files).WaitAsync(NoHang));
        }
        finally
        {
            await files.DisposeAsync();
            held.Free();
        }

        Volatile.Write(ref loadEnded, 1);

        // Long enough for the disk's reads then in flight (50 ms each) to have gone on, had the load not waited for them.
        await Task.Delay(TimeSpan.FromSeconds(1));
        Assert.Equal("The memory lane failed.", error.Message);
        Assert.Equal(0, Volatile.Read(ref readsAfterTheEnd));
        pool.AssertAllReturned();
    }

    private static async Task ReadAllAsync(IAsyncEnumerator<LoadedFile> files)
    {
        while (await files.MoveNextAsync())
        {
            files.Current.Dispose();
        }
    }

    public new void Dispose()
    {
        try
        {
            Directory.Delete(_memory, recursive: true);
        }
        catch (IOException)
        {
        }

        base.Dispose();
    }
}
