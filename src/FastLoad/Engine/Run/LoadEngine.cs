using System.Buffers;
using FastLoad.FileSystem;
using Microsoft.Extensions.Logging;

namespace FastLoad.Engine;

/// <summary>
/// What every load of one loader shares: its options (a copy, taken when the loader was made), its clock, instruments,
/// logger and test hooks. The front door hands it the checked arguments of a call; it starts the load or the stream.
/// </summary>
internal sealed class LoadEngine(FileLoaderOptions options, TimeProvider time, LoadInstruments instruments, ILogger? logger, LoadTestHooks hooks)
{
    private const int MinReadAhead = 2;
    private const int MaxReadAhead = 16;

    public FileLoaderOptions Options { get; } = options;

    public TimeProvider Time { get; } = time;

    public LoadInstruments Instruments { get; } = instruments;

    /// <summary>
    /// Where to log, failures contained; <see langword="null"/> when the loader has no logger, so that logging costs
    /// nothing.
    /// </summary>
    public ILogger? Logger { get; } = logger is null ? null : GuardedLogger.Wrap(logger);

    public LoadTestHooks Hooks { get; } = hooks;

    /// <summary>The files of a load as an asynchronous sequence; each enumeration runs the load.</summary>
    public IAsyncEnumerable<LoadedFile> Load(FileSet files, CancellationToken cancellationToken) =>
        new LoadEnumerable(this, files, cancellationToken);

    /// <summary>Starts nothing yet: the run enumerates the set and starts reading on its first <see cref="LoadRun.MoveNextAsync"/>.</summary>
    public LoadRun CreateRun(FileSet files, CancellationToken cancellationToken, CancellationToken enumeratorCancellationToken = default) =>
        new(files, this, cancellationToken, enumeratorCancellationToken);

    /// <summary>One file in chunks of <paramref name="chunkSize"/> bytes, read ahead within the memory budget (2 to 16 chunks).</summary>
    public IAsyncEnumerable<FileChunk> ReadChunks(string path, int chunkSize, CancellationToken cancellationToken)
    {
        int readAhead = (int)Math.Clamp(Options.MemoryBudget / chunkSize, MinReadAhead, MaxReadAhead);
        return ChunkStream.ReadAsync(path, chunkSize, readAhead, CreateReadSettings(), cancellationToken);
    }

    /// <summary>The read settings of one load or stream; a fallback to buffered reads is logged once in it.</summary>
    public ReadSettings CreateReadSettings()
    {
        ILogger? logger = Logger;
        return new ReadSettings
        {
            OwnPool = Options.BufferPool,
            Buffering = Options.Buffering,
            MemoryMapped = Options.UseMemoryMapping,
            SimulateRefusal = Hooks.SimulateUnbufferedRefusal,
            AvailableMemory = Hooks.AvailableMemory ?? AvailableMemory.Bytes,
            FallbackObserved = logger is null ? null : (path, reason) => logger.UnbufferedFallback(path, reason),
        };
    }
}
