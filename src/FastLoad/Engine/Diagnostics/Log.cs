using System.Runtime.CompilerServices;
using Microsoft.Extensions.Logging;

namespace FastLoad.Engine;

// Never inlined: a caller that holds no logger then names none of the logging assembly's types (the level of the
// generated IsEnabled check), so that a load without logging does not load that assembly in a new process.
internal static partial class Log
{
    [LoggerMessage(EventId = FastLoadEventId.LoadStarting, Level = LogLevel.Debug,
        Message = "Loading {FileCount} files of {FileSet} from {Device} as {StorageKind}: {DirectReaders} direct readers, pipeline {Pipeline}")]
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static partial void LoadStarting(
        this ILogger logger, int fileCount, FileSet fileSet, StorageDevice? device, StorageKind storageKind, int directReaders, bool pipeline);

    [LoggerMessage(EventId = FastLoadEventId.LaneStarting, Level = LogLevel.Debug,
        Message = "Reading from {Device} as {StorageKind}: {DegreeOfParallelism} reads at once "
            + "(ceiling {Ceiling}, adaptive {Adaptive}, physical order {PhysicalOrder})")]
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static partial void LaneStarting(
        this ILogger logger, string device, StorageKind storageKind, int degreeOfParallelism, int ceiling, bool adaptive, bool physicalOrder);

    [LoggerMessage(EventId = FastLoadEventId.LoadCompleted, Level = LogLevel.Information,
        Message = "Loaded {FileCount} files ({ByteCount} bytes) in {ElapsedMilliseconds} ms with {DegreeOfParallelism} parallel reads; {FailureCount} failed")]
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static partial void LoadCompleted(
        this ILogger logger, int fileCount, long byteCount, long elapsedMilliseconds, int degreeOfParallelism, int failureCount);

    [LoggerMessage(EventId = FastLoadEventId.UnbufferedFallback, Level = LogLevel.Information,
        Message = "Unbuffered reads are not possible for {Path} ({Reason}); reading buffered. Logged once per load.")]
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static partial void UnbufferedFallback(this ILogger logger, string path, string reason);

    [LoggerMessage(EventId = FastLoadEventId.IoUringUnavailable, Level = LogLevel.Debug,
        Message = "io_uring is not available ({Reason}); reading on threads")]
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static partial void IoUringUnavailable(this ILogger logger, string reason);

    [LoggerMessage(EventId = FastLoadEventId.LoadFailedAfterDispose, Level = LogLevel.Warning,
        Message = "The load failed after it was disposed; nobody was left to see the error")]
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static partial void LoadFailedAfterDispose(this ILogger logger, Exception exception);

    [LoggerMessage(EventId = FastLoadEventId.FileLoaded, Level = LogLevel.Trace, Message = "Loaded {Path} ({ByteCount} bytes)")]
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static partial void FileLoaded(this ILogger logger, string path, long byteCount);

    [LoggerMessage(EventId = FastLoadEventId.FileFailed, Level = LogLevel.Warning, Message = "Could not load {Path}")]
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static partial void FileFailed(this ILogger logger, string path, Exception exception);
}
