using System.Diagnostics.Metrics;
using FastLoad.Engine;
using FastLoad.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.Metrics.Testing;

namespace FastLoad.Tests.Hosting;

public class MetricsTests : TempDirectoryTestBase
{
    [Fact]
    public async Task Load_RecordsFilesBytesDurationsAndActiveReadsOnTheFastLoadMeter()
    {
        var sizes = Enumerable.Range(1, 20).Select(i => i * 1000).ToArray();
        var paths = sizes.Select((size, i) => WriteFile($"f{i}.bin", size)).ToList();
        string missing = Path.Combine(Root, "missing.bin");
        using ServiceProvider provider = new ServiceCollection()
            .AddMetrics()
            .AddFastLoad(options => options.ErrorHandling = LoadErrorHandling.Collect)
            .BuildServiceProvider();
        // Only this provider's meter: other tests record to the process-wide one at the same time.
        var factory = provider.GetRequiredService<IMeterFactory>();
        using var filesRead = new MetricCollector<long>(factory, FastLoadMetrics.MeterName, FastLoadMetrics.FilesRead);
        using var bytesRead = new MetricCollector<long>(factory, FastLoadMetrics.MeterName, FastLoadMetrics.BytesRead);
        using var readDuration = new MetricCollector<double>(factory, FastLoadMetrics.MeterName, FastLoadMetrics.ReadDuration);
        using var readsActive = new MetricCollector<long>(factory, FastLoadMetrics.MeterName, FastLoadMetrics.ReadsActive);
        using var parallelism = new MetricCollector<long>(factory, FastLoadMetrics.MeterName, FastLoadMetrics.Parallelism);

        await provider.GetRequiredService<FileLoader>().LoadAsync(FileSet.FromPaths([.. paths, missing]), (_, _) => ValueTask.CompletedTask);

        Assert.Equal(20, filesRead.GetMeasurementSnapshot().EvaluateAsCounter());
        Assert.Equal(sizes.Sum(), bytesRead.GetMeasurementSnapshot().EvaluateAsCounter());
        Assert.Equal(20, readDuration.GetMeasurementSnapshot().Count);
        Assert.NotEmpty(readsActive.GetMeasurementSnapshot());
        Assert.Equal(0, readsActive.GetMeasurementSnapshot().EvaluateAsCounter());
        Assert.Equal(0, parallelism.GetMeasurementSnapshot().EvaluateAsCounter());
        Assert.True(parallelism.GetMeasurementSnapshot().Count >= 2); // Raised at the start, lowered at the end.
    }

    [Fact]
    public async Task Load_FirstReaderStillDescribingTheStorage_ParallelismIsBackToZeroWhenTheLoadReturns()
    {
        // The first reader thread describes the storage off the load's path, and may still be at it when the load ends
        // (under Wine it was): the load's parallelism must not stay counted until that thread is done.
        var paths = Enumerable.Range(0, 64).Select(i => WriteFile($"f{i}.bin", 1000 + i)).ToList();
        using ServiceProvider provider = new ServiceCollection().AddMetrics().BuildServiceProvider();
        var factory = provider.GetRequiredService<IMeterFactory>();
        using var parallelism = new MetricCollector<long>(factory, FastLoadMetrics.MeterName, FastLoadMetrics.Parallelism);
        // Not disposed: the describing thread may come to its wait only after this test is over.
        var loadReturned = new ManualResetEventSlim();
        var hooks = new LoadTestHooks { OnDescribeDevice = () => loadReturned.Wait(TimeSpan.FromSeconds(30)) };
        var loader = new FileLoader(new FileLoaderOptions { Scheduling = IoScheduling.DedicatedThreads }, hooks, meterFactory: factory);

        LoadSummary summary;
        try
        {
            summary = await loader.LoadAsync(FileSet.FromPaths(paths), (_, _) => ValueTask.CompletedTask);
            Assert.NotEmpty(parallelism.GetMeasurementSnapshot());
            Assert.Equal(0, parallelism.GetMeasurementSnapshot().EvaluateAsCounter());
        }
        finally
        {
            loadReturned.Set();
        }

        Assert.Equal(64, summary.FileCount);
    }

    [LinuxTheory("a FIFO among the cases, made with mkfifo")]
    [InlineData("missing", IoScheduling.DedicatedThreads)]
    [InlineData("missing", IoScheduling.ThreadPool)]
    [InlineData("directory", IoScheduling.DedicatedThreads)]
    [InlineData("directory", IoScheduling.ThreadPool)]
    [InlineData("fifo", IoScheduling.DedicatedThreads)]
    [InlineData("fifo", IoScheduling.ThreadPool)]
    [InlineData("missing", IoScheduling.IoUring)]
    [InlineData("directory", IoScheduling.IoUring)]
    [InlineData("fifo", IoScheduling.IoUring)]
    public async Task Load_FileThatFails_CountsItOnceAsFailedAndTheOthersAsRead(string kind, IoScheduling scheduling)
    {
        var paths = Enumerable.Range(0, 8).Select(i => WriteFile($"f{i}.bin", 1000 + i)).ToList();
        string bad = Path.Combine(Root, $"bad-{kind}");
        switch (kind)
        {
            case "directory":
                Directory.CreateDirectory(bad);
                break;
            case "fifo":
                Native.CreateFifo(bad);
                break;
        }

        paths.Insert(3, bad);
        using ServiceProvider provider = new ServiceCollection()
            .AddMetrics()
            .AddFastLoad(options =>
            {
                options.ErrorHandling = LoadErrorHandling.Collect;
                options.Scheduling = scheduling;
            })
            .BuildServiceProvider();
        var factory = provider.GetRequiredService<IMeterFactory>();
        using var filesFailed = new MetricCollector<long>(factory, FastLoadMetrics.MeterName, FastLoadMetrics.FilesFailed);
        using var filesRead = new MetricCollector<long>(factory, FastLoadMetrics.MeterName, FastLoadMetrics.FilesRead);

        LoadSummary summary = await provider.GetRequiredService<FileLoader>().LoadAsync(FileSet.FromPaths(paths), (_, _) => ValueTask.CompletedTask);

        Assert.Equal(bad, Assert.Single(summary.Failures).Path);
        Assert.Equal(1, filesFailed.GetMeasurementSnapshot().EvaluateAsCounter());
        Assert.Equal(8, filesRead.GetMeasurementSnapshot().EvaluateAsCounter());
    }
}
