using Microsoft.Extensions.Logging;

namespace FastLoad.Prefetch;

internal static partial class Log
{
    [LoggerMessage(EventId = FastLoadEventId.StartupManifestNotFound, Level = LogLevel.Debug,
        Message = "No startup manifest at {Path}; this start will be recorded")]
    public static partial void StartupManifestNotFound(this ILogger logger, string path);

    [LoggerMessage(EventId = FastLoadEventId.StartupManifestStale, Level = LogLevel.Information,
        Message = "The startup manifest {Path} was recorded by build '{RecordedBuild}', not '{Build}': not replayed; this start will be recorded in its place")]
    public static partial void StartupManifestStale(this ILogger logger, string path, string recordedBuild, string build);

    [LoggerMessage(EventId = FastLoadEventId.StartupManifestCorrupt, Level = LogLevel.Warning,
        Message = "The startup manifest {Path} was ignored and will be rewritten: {Problem}")]
    public static partial void StartupManifestCorrupt(this ILogger logger, string path, string problem);

    [LoggerMessage(EventId = FastLoadEventId.StartupManifestReplayed, Level = LogLevel.Information,
        Message = "Startup prefetch of {Path}: {RequestedBytes} bytes asked of the disk, {CachedBytes} already cached, {FileCount} files "
            + "({ChangedFileCount} changed since and skipped, {UnopenedFileCount} that could not be opened) in {ElapsedMilliseconds} ms; "
            + "budget reached {BudgetReached}, stopped by the end of start-up {Stopped}")]
    public static partial void StartupManifestReplayed(
        this ILogger logger, string path, long requestedBytes, long cachedBytes, int fileCount, int changedFileCount, int unopenedFileCount, long elapsedMilliseconds, bool budgetReached, bool stopped);

    [LoggerMessage(EventId = FastLoadEventId.StartupManifestSkippedWarm, Level = LogLevel.Debug,
        Message = "Startup manifest {Path} not replayed: the process had read {DiskReadBytes} bytes from the disk when the start began, "
            + "less than the cold start threshold of {ColdStartThreshold}, so its files were taken to be cached")]
    public static partial void StartupManifestSkippedWarm(this ILogger logger, string path, long diskReadBytes, long coldStartThreshold);

    /// <summary>At <see cref="LogLevel.Information"/> when the manifest was written, at <see cref="LogLevel.Debug"/> when it was left unchanged.</summary>
    [LoggerMessage(EventId = FastLoadEventId.StartupManifestRecorded,
        Message = "Recorded this start in {Path} in {ElapsedMilliseconds} ms: {FileCount} files, {ByteCount} bytes; written {Written} (an unchanged manifest is left as it is)")]
    public static partial void StartupManifestRecorded(this ILogger logger, LogLevel level, string path, double elapsedMilliseconds, int fileCount, long byteCount, bool written);

    [LoggerMessage(EventId = FastLoadEventId.StartupManifestNotWritten, Level = LogLevel.Warning,
        Message = "The startup manifest could not be written to {Paths}; the next start will not be prefetched")]
    public static partial void StartupManifestNotWritten(this ILogger logger, string paths, Exception? exception);

    [LoggerMessage(EventId = FastLoadEventId.StartupPrefetchFailed, Level = LogLevel.Warning,
        Message = "The startup prefetch stopped on an unexpected error; the application goes on without it")]
    public static partial void StartupPrefetchFailed(this ILogger logger, Exception exception);
}
