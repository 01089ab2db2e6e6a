using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using FastLoad.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;

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
        var factory = provider.GetRequiredService<IMeterFactory>();
        var sums = new ConcurrentDictionary<string, double>();
        var counts = new ConcurrentDictionary<string, int>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            // Only this test's meter: other tests record to the process-wide one at the same time.
            if (instrument.Meter.Name == FastLoadMetrics.MeterName && ReferenceEquals(instrument.Meter.Scope, factory))
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, _, _) => Record(instrument.Name, value));
        listener.SetMeasurementEventCallback<double>((instrument, value, _, _) => Record(instrument.Name, value));
        listener.Start();

        await provider.GetRequiredService<FileLoader>().LoadAsync(FileSet.FromPaths([.. paths, missing]), (_, _) => ValueTask.CompletedTask);

        Assert.Equal(20, sums[FastLoadMetrics.FilesRead]);
        Assert.Equal(sizes.Sum(), sums[FastLoadMetrics.BytesRead]);
        Assert.Equal(20, counts[FastLoadMetrics.ReadDuration]);
        Assert.Equal(0, sums[FastLoadMetrics.ReadsActive]);
        Assert.Equal(0, sums.GetValueOrDefault(FastLoadMetrics.Parallelism));
        Assert.True(counts[FastLoadMetrics.Parallelism] >= 2); // Raised at the start, lowered at the end.

        void Record(string name, double value)
        {
            sums.AddOrUpdate(name, value, (_, sum) => sum + value);
            counts.AddOrUpdate(name, 1, (_, count) => count + 1);
        }
    }

    [LinuxTheory] // The FIFO cases: Native.CreateFifo is Linux's mkfifo.
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
        var sums = new ConcurrentDictionary<string, double>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == FastLoadMetrics.MeterName && ReferenceEquals(instrument.Meter.Scope, factory))
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, _, _) => sums.AddOrUpdate(instrument.Name, value, (_, sum) => sum + value));
        listener.Start();

        LoadSummary summary = await provider.GetRequiredService<FileLoader>().LoadAsync(FileSet.FromPaths(paths), (_, _) => ValueTask.CompletedTask);

        Assert.Equal(bad, Assert.Single(summary.Failures).Path);
        Assert.Equal(1, sums.GetValueOrDefault(FastLoadMetrics.FilesFailed));
        Assert.Equal(8, sums.GetValueOrDefault(FastLoadMetrics.FilesRead));
    }
}
