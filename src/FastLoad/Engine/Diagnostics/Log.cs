using Microsoft.Extensions.Logging;

namespace FastLoad.Engine;

internal static partial class Log
{
    [LoggerMessage(EventId = FastLoadEventId.LoadStarting, Level = LogLevel.Debug,
        Message = "Loading {FileCount} files of {FileSet} from {Device} as {StorageKind}: {DirectReaders} direct readers, pipeline {Pipeline}")]
    public static partial void LoadStarting(
        this ILogger logger, int fileCount, FileSet fileSet, StorageDevice? device, StorageKind storageKind, int directReaders, bool pipeline);

    [LoggerMessage(EventId = FastLoadEventId.LaneStarting, Level = LogLevel.Debug,
        Message = "Reading from {Device} as {StorageKind}: {DegreeOfParallelism} reads at once "
            + "(ceiling {Ceiling}, adaptive {Adaptive}, physical order {PhysicalOrder})")]
    public static partial void LaneStarting(
        this ILogger logger, string device, StorageKind storageKind, int degreeOfParallelism, int ceiling, bool adaptive, bool physicalOrder);

    [LoggerMessage(EventId = FastLoadEventId.LoadCompleted, Level = LogLevel.Information,
        Message = "Loaded {FileCount} files ({ByteCount} bytes) in {ElapsedMilliseconds} ms with {DegreeOfParallelism} parallel reads; {FailureCount} failed")]
    public static partial void LoadCompleted(
        this ILogger logger, int fileCount, long byteCount, long elapsedMilliseconds, int degreeOfParallelism, int failureCount);

    [LoggerMessage(EventId = FastLoadEventId.UnbufferedFallback, Level = LogLevel.Information,
        Message = "Unbuffered reads are not possible for {Path} ({Reason}); reading buffered. Logged once per load.")]
    public static partial void UnbufferedFallback(this ILogger logger, string path, string reason);

    [LoggerMessage(EventId = FastLoadEventId.IoUringUnavailable, Level = LogLevel.Debug,
        Message = "io_uring is not available ({Reason}); reading on threads")]
    public static partial void IoUringUnavailable(this ILogger logger, string reason);

    [LoggerMessage(EventId = FastLoadEventId.FileLoaded, Level = LogLevel.Trace, Message = "Loaded {Path} ({ByteCount} bytes)")]
    public static partial void FileLoaded(this ILogger logger, string path, long byteCount);

    [LoggerMessage(EventId = FastLoadEventId.FileFailed, Level = LogLevel.Warning, Message = "Could not load {Path}")]
    public static partial void FileFailed(this ILogger logger, string path, Exception exception);
}
