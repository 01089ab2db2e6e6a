using System.Diagnostics.Metrics;

namespace FastLoad.Diagnostics;

/// <summary>The instruments a loader records to: from the host's <see cref="IMeterFactory"/>, or one process-wide meter.</summary>
internal sealed class LoadInstruments
{
    private static readonly Lazy<Meter> SharedMeter = new(() => new Meter(FastLoadMetrics.MeterName));

    public LoadInstruments(IMeterFactory? meterFactory)
    {
        Meter meter = meterFactory?.Create(FastLoadMetrics.MeterName) ?? SharedMeter.Value;
        FilesRead = meter.CreateCounter<long>(FastLoadMetrics.FilesRead, "{file}", "Files loaded.");
        FilesFailed = meter.CreateCounter<long>(FastLoadMetrics.FilesFailed, "{file}", "Files that failed to load.");
        BytesRead = meter.CreateCounter<long>(FastLoadMetrics.BytesRead, "By", "Bytes loaded.");
        ReadDuration = meter.CreateHistogram<double>(FastLoadMetrics.ReadDuration, "s", "Time to read one whole file.");
        ReadsActive = meter.CreateUpDownCounter<long>(FastLoadMetrics.ReadsActive, "{read}", "File reads running now.");
        Parallelism = meter.CreateUpDownCounter<long>(FastLoadMetrics.Parallelism, "{read}", "Parallelism of the loads running now.");
    }

    public Counter<long> FilesRead { get; }

    public Counter<long> FilesFailed { get; }

    public Counter<long> BytesRead { get; }

    public Histogram<double> ReadDuration { get; }

    public UpDownCounter<long> ReadsActive { get; }

    public UpDownCounter<long> Parallelism { get; }
}
