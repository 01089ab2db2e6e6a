using System.Diagnostics;
using System.Globalization;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reliability;

/// <summary>
/// A long-lived process loads again and again: after 1,000 loads it holds no more descriptors, pooled buffers or
/// I/O threads than before. It counts the whole process, so it runs alone.
/// </summary>
[Collection(ProcessWide.Name)]
public class BackToBackLoadTests : TempDirectoryTestBase
{
    private const int Loads = 1000;
    private const int GoodFiles = 16;

    // The prefix of the loader's I/O thread names, within the 15 bytes Linux keeps of a thread name.
    private const string IoThreadName = "FastLoad I/O";

    private static readonly TimeSpan NoHang = TimeSpan.FromSeconds(60);

    private readonly ITestOutputHelper _output;
    private readonly List<string> _paths;

    public BackToBackLoadTests(ITestOutputHelper output)
    {
        _output = output;
        _paths = Enumerable.Range(0, GoodFiles).Select(i => WriteFile($"f{i:D2}.bin", i * 4000, seed: i)).ToList();
        _paths.Insert(GoodFiles / 2, Path.Combine(Root, "missing.bin")); // The error path runs every time too.
    }

    [LinuxFact("/proc/self/fd and /proc/self/task")]
    public async Task LoadAsync_ThousandLoadsBackToBack_LeakNoDescriptorBufferOrIoThread()
    {
        var pool = new CountingPool();
        FileLoader[] loaders =
        [
            new(new FileLoaderOptions { BufferPool = pool, ErrorHandling = LoadErrorHandling.Collect, Scheduling = IoScheduling.DedicatedThreads }),
            new(new FileLoaderOptions { BufferPool = pool, ErrorHandling = LoadErrorHandling.Collect, Scheduling = IoScheduling.ThreadPool, Ordering = LoadOrdering.Input }),
            new(new FileLoaderOptions { BufferPool = pool, ErrorHandling = LoadErrorHandling.Collect }), // The rings, where the kernel has them.
        ];
        FileSet set = FileSet.FromPaths(_paths);
        for (int i = 0; i < loaders.Length; i++)
        {
            await LoadOnceAsync(loaders[i], set, i % 2); // Whatever the runtime opens once (epoll, its own threads) is opened now.
        }

        await SettleAsync(() => ProcessWide.ThreadsNamed(IoThreadName) == 0);
        int descriptorsBefore = ProcessWide.OpenDescriptorsBaseline();
        int threadsBefore = ProcessWide.Threads();
        var started = Stopwatch.StartNew();

        for (int i = 0; i < Loads; i++)
        {
            await LoadOnceAsync(loaders[i % loaders.Length], set, i / loaders.Length % 2);
        }

        TimeSpan elapsed = started.Elapsed;

        // The I/O threads of a load exit once it ends, on their own time: wait for them, within reason.
        bool ioThreadsGone = await SettleAsync(() => ProcessWide.ThreadsNamed(IoThreadName) == 0);
        int threadsAfter = ProcessWide.Threads();
        int descriptorsAfter = ProcessWide.OpenDescriptors();
        _output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{Loads} loads of {_paths.Count} files in {elapsed.TotalSeconds:F1} s; descriptors {descriptorsBefore} -> {descriptorsAfter}; threads {threadsBefore} -> {threadsAfter}; buffers rented {pool.RentCount}, outstanding {pool.Outstanding}"));

        Assert.True(ioThreadsGone, $"{ProcessWide.ThreadsNamed(IoThreadName)} I/O threads still alive");
        Assert.Equal(descriptorsBefore, descriptorsAfter);

        // The shared thread pool may have grown a little meanwhile; 1,000 loads must not have added threads each.
        Assert.InRange(threadsAfter, 1, threadsBefore + (4 * Environment.ProcessorCount) + 8);
        // f00.bin is empty: it arrives without a buffer (EmptyFileTests).
        Assert.Equal((Loads + loaders.Length) * (GoodFiles - 1), pool.RentCount);
        pool.AssertAllReturned();
    }

    /// <summary>One load through the consumer (<paramref name="api"/> 0) or the enumerable (1), checked in full.</summary>
    private async Task LoadOnceAsync(FileLoader loader, FileSet set, int api)
    {
        int loaded = 0;
        int failed = 0;
        if (api == 0)
        {
            LoadSummary summary = await loader.LoadAsync(set, (_, _) => ValueTask.CompletedTask).WaitAsync(NoHang);
            loaded = summary.FileCount;
            failed = summary.Failures.Count;
        }
        else
        {
            foreach (var result in await Infrastructure.Loads.CollectAsync(loader, set).WaitAsync(NoHang))
            {
                _ = result.Error is null ? loaded++ : failed++;
            }
        }

        Assert.Equal(GoodFiles, loaded);
        Assert.Equal(1, failed);
    }

    private static async Task<bool> SettleAsync(Func<bool> settled)
    {
        for (int i = 0; i < 200 && !settled(); i++)
        {
            await Task.Delay(50);
        }

        return settled();
    }
}
