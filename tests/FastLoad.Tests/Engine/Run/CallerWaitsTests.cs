using FastLoad.Engine;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Loading;

/// <summary>
/// A new process has no thread pool threads: there a load's consumer waits on the calling thread for the reads in
/// flight instead of continuing on a pool thread the runtime would start first. Tests run where the pool has started,
/// so they force the choice on their thread.
/// </summary>
public sealed class CallerWaitsTests : TempDirectoryTestBase
{
    /// <summary>Two reader threads, each read slowed: the consumer catches up and waits for every file.</summary>
    [Fact]
    public async Task LoadAsync_CallerWaits_ConsumesEveryFileOnTheCallingThread()
    {
        var files = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        for (int i = 0; i < 100; i++)
        {
            byte[] data = Contents(100 + (i * 97 % 20_000), i);
            files.Add(WriteFile($"d{i % 7}/f{i:D3}.bin", data), data);
        }

        var loader = new FileLoader(
            new FileLoaderOptions { Scheduling = IoScheduling.DedicatedThreads, MaxDegreeOfParallelism = 2 },
            new LoadTestHooks { OnBlockingRead = static _ => Thread.Sleep(2) });
        int callingThread = Environment.CurrentManagedThreadId;
        int elsewhere = 0;
        var loaded = new Dictionary<string, byte[]>(StringComparer.Ordinal);

        Task<LoadSummary> load = CallerWaitsForced.Run(() => loader.LoadAsync(FileSet.FromDirectory(Root), (file, _) =>
        {
            if (Environment.CurrentManagedThreadId != callingThread)
            {
                elsewhere++;
            }

            loaded.Add(file.Path, file.Data.ToArray());
            return ValueTask.CompletedTask;
        }));

        Assert.True(load.IsCompletedSuccessfully, $"the load was left {load.Status}");
        Assert.Equal(0, elsewhere);
        Assert.Equal(files.Count, (await load).FileCount);
        Assert.Equal(files.Keys.Order(StringComparer.Ordinal), loaded.Keys.Order(StringComparer.Ordinal));
        foreach ((string path, byte[] data) in files)
        {
            Assert.Equal(data, loaded[path]);
        }
    }
}
