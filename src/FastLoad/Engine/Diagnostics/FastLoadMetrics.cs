namespace FastLoad;

/// <summary>
/// The names of FastLoad's meter and instruments (System.Diagnostics.Metrics), following the OpenTelemetry naming
/// conventions. Listen with <c>dotnet-counters monitor --counters FastLoad</c> or an OpenTelemetry <c>AddMeter("FastLoad")</c>.
/// </summary>
public static class FastLoadMetrics
{
    /// <summary>The meter: <c>FastLoad</c>.</summary>
    public const string MeterName = "FastLoad";

    /// <summary>Counter of files loaded, unit <c>{file}</c>.</summary>
    public const string FilesRead = "fastload.files.read";

    /// <summary>Counter of files that failed to load, unit <c>{file}</c>.</summary>
    public const string FilesFailed = "fastload.files.failed";

    /// <summary>Counter of bytes loaded, unit <c>By</c>.</summary>
    public const string BytesRead = "fastload.bytes.read";

    /// <summary>Histogram of the time to read one whole file (open to close), unit <c>s</c>.</summary>
    public const string ReadDuration = "fastload.read.duration";

    /// <summary>Up-down counter of file reads running now, unit <c>{read}</c>.</summary>
    public const string ReadsActive = "fastload.reads.active";

    /// <summary>Up-down counter of the parallelism of the loads running now (the sum of their current limits), unit <c>{read}</c>.</summary>
    public const string Parallelism = "fastload.parallelism";
}
