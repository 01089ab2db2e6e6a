using System.Diagnostics.Metrics;
using System.Runtime.ExceptionServices;
using System.Threading.Tasks.Dataflow;
using FastLoad.Engine;
using Microsoft.Extensions.Logging;

namespace FastLoad;

/// <summary>
/// Loads sets of files into pooled memory, many reads at once, within a memory budget. Thread-safe: one loader
/// can run any number of loads at the same time.
/// </summary>
/// <example>
/// <code>
/// var loader = new FileLoader(new FileLoaderOptions { MemoryBudget = 256 * 1024 * 1024 });
/// await foreach (LoadedFile file in loader.LoadAsync(FileSet.FromDirectory("assets", "*.json")))
/// {
///     using (file) Parse(file.Path, file.Sequence);
/// }
/// </code>
/// <see cref="LoadedFile.Data"/> gives the same bytes as one block of memory, for files up to 2 GiB; a larger file
/// has its contents only as <see cref="LoadedFile.Sequence"/>.
/// </example>
public sealed class FileLoader
{
    /// <summary>The chunk size of <see cref="ReadChunksAsync(string, CancellationToken)"/>: 4 MiB.</summary>
    public const int DefaultChunkSize = 4 * 1024 * 1024;

    private const int MinChunkSize = 4 * 1024;
    private const int MaxChunkSize = 256 * 1024 * 1024;

    // The logger's category, as CreateLogger<FileLoader>() names it, without its reflection over the type's name.
    private const string LoggerCategory = "FastLoad.FileLoader";

    private readonly LoadEngine _engine;

    /// <summary>Creates a loader with the default options, no logging, the system clock and a process-wide meter.</summary>
    public FileLoader()
        : this(null, LoadTestHooks.None)
    {
    }

    /// <summary>Creates a loader with no logging, the system clock and a process-wide meter.</summary>
    /// <param name="options">The options, copied now; <see langword="null"/> for the defaults.</param>
    /// <exception cref="ArgumentException"><paramref name="options"/> has a value out of range or an invalid combination; the message names it.</exception>
    /// <remarks>
    /// Beside the constructor that takes them all: compiling a call to that one makes the runtime load the logging and
    /// metrics assemblies its parameters name, a cost a new process pays on its first load.
    /// </remarks>
    public FileLoader(FileLoaderOptions? options)
        : this(options, LoadTestHooks.None)
    {
    }

    /// <summary>Creates a loader.</summary>
    /// <param name="options">The options, copied now; <see langword="null"/> for the defaults.</param>
    /// <param name="loggerFactory">Where to log; <see langword="null"/> for no logging.</param>
    /// <param name="timeProvider">
    /// The clock of the adaptive controller's measurement windows; <see langword="null"/> for
    /// <see cref="TimeProvider.System"/>.
    /// </param>
    /// <param name="meterFactory">
    /// Where the <see cref="FastLoadMetrics.MeterName"/> meter comes from; <see langword="null"/> for a process-wide meter, which is
    /// created in the background after the process's first load, at the garbage collection that follows it (creating a
    /// meter costs a new process more than loading a few hundred files, and starting a thread for it as much as a small
    /// load). What loads record before then is recorded when it exists.
    /// </param>
    /// <exception cref="ArgumentException"><paramref name="options"/> has a value out of range or an invalid combination; the message names it.</exception>
    public FileLoader(
        FileLoaderOptions? options = null, ILoggerFactory? loggerFactory = null, TimeProvider? timeProvider = null, IMeterFactory? meterFactory = null)
        : this(options, LoadTestHooks.None, loggerFactory, timeProvider, meterFactory)
    {
    }

    /// <summary>Creates a loader whose engine runs with <paramref name="testHooks"/>: faults and limits no option exposes.</summary>
    internal FileLoader(
        FileLoaderOptions? options, LoadTestHooks testHooks, ILoggerFactory? loggerFactory = null,
        TimeProvider? timeProvider = null, IMeterFactory? meterFactory = null)
    {
        FileLoaderOptions copy = (options ?? new FileLoaderOptions()).Clone();
        if (copy.Validate() is { } failure)
        {
            throw new ArgumentException(failure, nameof(options));
        }

        _engine = new LoadEngine(
            copy, timeProvider ?? TimeProvider.System, new LoadInstruments(meterFactory), loggerFactory?.CreateLogger(LoggerCategory), testHooks);
    }

    // A loader over an engine made here: one that differs from another loader only in what the engine copied.
    private FileLoader(LoadEngine engine) => _engine = engine;

    /// <summary>Where the loader logs; <see langword="null"/> when it was made without a logger factory.</summary>
    internal ILogger? Logger => _engine.Logger;

    /// <summary>
    /// This loader, or one like it (options, logger, clock, instruments, test hooks) that delivers failed files with
    /// <see cref="LoadedFile.Error"/> set instead of throwing: for callers that must go on past a bad file whatever
    /// the loader they were given, such as a preloaded folder.
    /// </summary>
    internal FileLoader CollectingFailures()
    {
        if (_engine.Options.ErrorHandling == LoadErrorHandling.Collect)
        {
            return this;
        }

        FileLoaderOptions options = _engine.Options.Clone();
        options.ErrorHandling = LoadErrorHandling.Collect;
        return new FileLoader(new LoadEngine(options, _engine.Time, _engine.Instruments, _engine.Logger, _engine.Hooks));
    }

    /// <summary>Loads a set of files and streams each one out as it is ready.</summary>
    /// <param name="files">The files to load.</param>
    /// <param name="cancellationToken">Stops the load; every buffer not handed over is returned to the pool.</param>
    /// <returns>
    /// The files, in the order of <see cref="FileLoaderOptions.Ordering"/>. Each file is yours: dispose it to return its buffer.
    /// Reading runs ahead of you, within <see cref="FileLoaderOptions.MemoryBudget"/>.
    /// </returns>
    /// <exception cref="ArgumentNullException"><paramref name="files"/> is <see langword="null"/>.</exception>
    /// <exception cref="IOException">With <see cref="LoadErrorHandling.Throw"/>, a file could not be read (the message names it).</exception>
    /// <exception cref="UnauthorizedAccessException">
    /// With <see cref="LoadErrorHandling.Throw"/>, a file could not be opened; or a directory of the set could not be
    /// enumerated.
    /// </exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public IAsyncEnumerable<LoadedFile> LoadAsync(FileSet files, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(files);
        return _engine.Load(files, cancellationToken);
    }

    /// <summary>Loads a set of files and hands each one to a consumer, which runs while the next files are being read.</summary>
    /// <param name="files">The files to load.</param>
    /// <param name="consumer">
    /// Called once for each file that loaded, at most <see cref="FileLoaderOptions.ConsumerParallelism"/> calls at once.
    /// The file and its data are valid until the returned task completes; the loader disposes the file then.
    /// </param>
    /// <param name="cancellationToken">Stops the load; every buffer is returned to the pool.</param>
    /// <returns>What the load did; with <see cref="LoadErrorHandling.Collect"/>, the files that failed are in <see cref="LoadSummary.Failures"/>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="files"/> or <paramref name="consumer"/> is <see langword="null"/>.</exception>
    /// <exception cref="IOException">With <see cref="LoadErrorHandling.Throw"/>, a file could not be read (the message names it).</exception>
    /// <exception cref="UnauthorizedAccessException">
    /// With <see cref="LoadErrorHandling.Throw"/>, a file could not be opened; or a directory of the set could not be
    /// enumerated.
    /// </exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    /// <remarks>An exception thrown by <paramref name="consumer"/> stops the load and is rethrown, once.</remarks>
    public Task<LoadSummary> LoadAsync(FileSet files, Func<LoadedFile, CancellationToken, ValueTask> consumer, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(files);
        ArgumentNullException.ThrowIfNull(consumer);
        return LoadToConsumerAsync(files, consumer, cancellationToken);
    }

    /// <summary>
    /// Streams one file in order, in chunks of <see cref="DefaultChunkSize"/> bytes, reading ahead within the memory
    /// budget: hash or parse a file of any size in constant memory at the speed of the disk.
    /// </summary>
    /// <param name="path">The file.</param>
    /// <param name="cancellationToken">Stops the stream; every buffer not handed over is returned to the pool.</param>
    /// <returns>The chunks, in file order. Each is yours: dispose it to return its buffer.</returns>
    /// <exception cref="ArgumentException"><paramref name="path"/> is <see langword="null"/> or empty.</exception>
    /// <exception cref="FileNotFoundException">The file does not exist.</exception>
    /// <exception cref="IOException">The file is not a regular file, or a read failed; the message names it.</exception>
    /// <exception cref="UnauthorizedAccessException">The file cannot be opened for reading.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public IAsyncEnumerable<FileChunk> ReadChunksAsync(string path, CancellationToken cancellationToken = default) =>
        ReadChunksAsync(path, DefaultChunkSize, cancellationToken);

    /// <summary>Streams one file in order, in chunks of <paramref name="chunkSize"/> bytes, reading ahead within the memory budget.</summary>
    /// <param name="path">The file.</param>
    /// <param name="chunkSize">Bytes per chunk, from 4 KiB to 256 MiB.</param>
    /// <param name="cancellationToken">Stops the stream; every buffer not handed over is returned to the pool.</param>
    /// <returns>
    /// The chunks, in file order; the file as it was when opened (a file that shrinks meanwhile ends early). The
    /// read-ahead is <see cref="FileLoaderOptions.MemoryBudget"/> / <paramref name="chunkSize"/>, from 2 to 16 chunks.
    /// Where <see cref="FileLoaderOptions.Buffering"/> calls for unbuffered reads of a file of this size (with
    /// <see cref="FileBuffering.Auto"/>: from 1 GiB) and no <see cref="FileLoaderOptions.BufferPool"/> is given, the
    /// chunks are read around the page cache into aligned native memory (Linux, macOS), if <paramref name="chunkSize"/>
    /// is a multiple of the device's alignment; otherwise buffered, the fallback logged once.
    /// </returns>
    /// <exception cref="ArgumentException"><paramref name="path"/> is <see langword="null"/> or empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="chunkSize"/> is outside 4 KiB to 256 MiB.</exception>
    /// <exception cref="FileNotFoundException">The file does not exist.</exception>
    /// <exception cref="IOException">The file is not a regular file, or a read failed; the message names it.</exception>
    /// <exception cref="UnauthorizedAccessException">The file cannot be opened for reading.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public IAsyncEnumerable<FileChunk> ReadChunksAsync(string path, int chunkSize, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        ArgumentOutOfRangeException.ThrowIfLessThan(chunkSize, MinChunkSize);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(chunkSize, MaxChunkSize);
        return _engine.ReadChunks(path, chunkSize, cancellationToken);
    }

    private Task<LoadSummary> LoadToConsumerAsync(
        FileSet files, Func<LoadedFile, CancellationToken, ValueTask> consumer, CancellationToken cancellationToken) =>
        _engine.Options.ConsumerParallelism == 1
            ? LoadToOneConsumerAsync(files, consumer, cancellationToken)
            : LoadToParallelConsumersAsync(files, consumer, cancellationToken);

    /// <summary>One call at a time, on the loop that takes the files: no block to build for the common case.</summary>
    private async Task<LoadSummary> LoadToOneConsumerAsync(
        FileSet files, Func<LoadedFile, CancellationToken, ValueTask> consumer, CancellationToken cancellationToken)
    {
        LoadRun run = _engine.CreateRun(files, cancellationToken);
        await using (run.ConfigureAwait(false))
        {
            while (await run.MoveNextAsync().ConfigureAwait(false))
            {
                using LoadedFile file = run.Current;
                if (file.Succeeded)
                {
                    await consumer(file, cancellationToken).ConfigureAwait(false);
                }
            }

            return run.Complete();
        }
    }

    private async Task<LoadSummary> LoadToParallelConsumersAsync(
        FileSet files, Func<LoadedFile, CancellationToken, ValueTask> consumer, CancellationToken cancellationToken)
    {
        using var consumerStop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        Exception? consumerError = null;
        bool skipped = false;
        var consumeBlock = new ActionBlock<LoadedFile>(
            async file =>
            {
                using (file)
                {
                    if (consumerStop.IsCancellationRequested)
                    {
                        // Handed over, never consumed: the load did not complete.
                        Volatile.Write(ref skipped, true);
                        return;
                    }

                    try
                    {
                        await consumer(file, consumerStop.Token).ConfigureAwait(false);
                    }
                    catch (Exception ex)
                    {
                        // Recorded here rather than left to the block, which would swallow an OperationCanceledException.
                        if (Interlocked.CompareExchange(ref consumerError, ex, null) is null)
                        {
                            await consumerStop.CancelAsync().ConfigureAwait(false);
                        }
                    }
                }
            },
            new ExecutionDataflowBlockOptions
            {
                MaxDegreeOfParallelism = _engine.Options.ConsumerParallelism,
                BoundedCapacity = _engine.Options.ConsumerParallelism,
                SingleProducerConstrained = true,
            });

        LoadRun run = _engine.CreateRun(files, consumerStop.Token);
        LoadSummary? summary = null;
        try
        {
            await using (run.ConfigureAwait(false))
            {
                while (await run.MoveNextAsync().ConfigureAwait(false))
                {
                    LoadedFile file = run.Current;
                    if (!file.Succeeded)
                    {
                        file.Dispose();
                        continue;
                    }

                    await PostAsync(consumeBlock, file, consumerStop.Token).ConfigureAwait(false);
                }

                consumeBlock.Complete();
                await consumeBlock.Completion.ConfigureAwait(false);
                summary = run.Complete();
            }
        }
        catch (OperationCanceledException) when (Volatile.Read(ref consumerError) is not null)
        {
            // The consumer failed and stopped the load: its exception is the one to surface.
        }
        finally
        {
            consumeBlock.Complete();
            await consumeBlock.Completion.ConfigureAwait(false);
        }

        if (consumerError is not null)
        {
            ExceptionDispatchInfo.Throw(consumerError);
        }

        // As with one consumer: a load whose every file reached the consumer completed, even if the token was
        // canceled after that; one that skipped a file was canceled.
        if (Volatile.Read(ref skipped))
        {
            cancellationToken.ThrowIfCancellationRequested();
        }

        return summary!;
    }

    private static async ValueTask PostAsync(ActionBlock<LoadedFile> block, LoadedFile file, CancellationToken cancellationToken)
    {
        bool accepted = false;
        try
        {
            accepted = await block.SendAsync(file, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            if (!accepted)
            {
                file.Dispose();
            }
        }
    }
}
