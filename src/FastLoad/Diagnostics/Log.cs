using Microsoft.Extensions.Logging;

namespace FastLoad.Diagnostics;

internal static partial class Log
{
    [LoggerMessage(EventId = FastLoadEventId.LoadStarting, Level = LogLevel.Debug,
        Message = "Loading {FileCount} files of {FileSet} with {DegreeOfParallelism} parallel reads on {Scheduling}")]
    public static partial void LoadStarting(this ILogger logger, int fileCount, FileSet fileSet, int degreeOfParallelism, IoScheduling scheduling);

    [LoggerMessage(EventId = FastLoadEventId.LoadCompleted, Level = LogLevel.Information,
        Message = "Loaded {FileCount} files ({ByteCount} bytes) in {ElapsedMilliseconds} ms with {DegreeOfParallelism} parallel reads; {FailureCount} failed")]
    public static partial void LoadCompleted(this ILogger logger, int fileCount, long byteCount, long elapsedMilliseconds, int degreeOfParallelism, int failureCount);

    [LoggerMessage(EventId = FastLoadEventId.FileLoaded, Level = LogLevel.Trace, Message = "Loaded {Path} ({ByteCount} bytes)")]
    public static partial void FileLoaded(this ILogger logger, string path, long byteCount);

    [LoggerMessage(EventId = FastLoadEventId.FileFailed, Level = LogLevel.Warning, Message = "Could not load {Path}")]
    public static partial void FileFailed(this ILogger logger, string path, Exception exception);
}
