using System.Buffers;
using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using System.Threading.Tasks.Dataflow;
using FastLoad.Diagnostics;
using FastLoad.Loading;
using FastLoad.Reading;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

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
///     using (file) Parse(file.Path, file.Data.Span);
/// }
/// </code>
/// </example>
public sealed class FileLoader
{
    /// <summary>The chunk size of <see cref="ReadChunksAsync(string, CancellationToken)"/>: 4 MiB.</summary>
    public const int DefaultChunkSize = 4 * 1024 * 1024;

    private const int MinChunkSize = 4 * 1024;
    private const int MaxChunkSize = 256 * 1024 * 1024;
    private const int MinReadAhead = 2;
    private const int MaxReadAhead = 16;

    private readonly FileLoaderOptions _options;
    private readonly TimeProvider _time;
    private readonly LoadInstruments _instruments;
    private readonly ILogger _logger;

    /// <summary>Creates a loader.</summary>
    /// <param name="options">The options, copied now; <see langword="null"/> for the defaults.</param>
    /// <param name="loggerFactory">Where to log; <see langword="null"/> for no logging.</param>
    /// <param name="timeProvider">The clock of the adaptive controller's measurement windows; <see langword="null"/> for <see cref="TimeProvider.System"/>.</param>
    /// <param name="meterFactory">Where the <see cref="FastLoadMetrics.MeterName"/> meter comes from; <see langword="null"/> for a process-wide meter.</param>
    /// <exception cref="ArgumentException"><paramref name="options"/> has a value out of range or an invalid combination; the message names it.</exception>
    public FileLoader(FileLoaderOptions? options = null, ILoggerFactory? loggerFactory = null, TimeProvider? timeProvider = null, IMeterFactory? meterFactory = null)
    {
        _options = (options ?? new FileLoaderOptions()).Clone();
        foreach (IValidateOptions<FileLoaderOptions> validator in (IValidateOptions<FileLoaderOptions>[])[new FileLoaderOptionsValidator(), new FileLoaderOptionsCrossValidator()])
        {
            ValidateOptionsResult result = validator.Validate(Options.DefaultName, _options);
            if (result.Failed)
            {
                throw new ArgumentException(result.FailureMessage, nameof(options));
            }
        }

        _time = timeProvider ?? TimeProvider.System;
        _instruments = new LoadInstruments(meterFactory);
        _logger = (loggerFactory ?? NullLoggerFactory.Instance).CreateLogger<FileLoader>();
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
    /// <exception cref="UnauthorizedAccessException">With <see cref="LoadErrorHandling.Throw"/>, a file could not be opened; or a directory of the set could not be enumerated.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public IAsyncEnumerable<LoadedFile> LoadAsync(FileSet files, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(files);
        return LoadCoreAsync(files, cancellationToken);
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
    /// <exception cref="UnauthorizedAccessException">With <see cref="LoadErrorHandling.Throw"/>, a file could not be opened; or a directory of the set could not be enumerated.</exception>
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
        int readAhead = (int)Math.Clamp(_options.MemoryBudget / chunkSize, MinReadAhead, MaxReadAhead);
        return ChunkStream.ReadAsync(path, chunkSize, readAhead, ReadSettings.For(_options, _logger), cancellationToken);
    }

    private async IAsyncEnumerable<LoadedFile> LoadCoreAsync(FileSet files, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        LoadRun run = LoadRun.Start(files, _options, _time, _instruments, _logger, cancellationToken);
        await using (run.ConfigureAwait(false))
        {
            while (await run.ReadNextAsync(cancellationToken).ConfigureAwait(false) is { } file)
            {
                ThrowIfFailedAndThrowing(file);
                yield return file;
            }

            run.Complete();
        }
    }

    private async Task<LoadSummary> LoadToConsumerAsync(FileSet files, Func<LoadedFile, CancellationToken, ValueTask> consumer, CancellationToken cancellationToken)
    {
        using var consumerStop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        Exception? consumerError = null;
        var consumeBlock = new ActionBlock<LoadedFile>(
            async file =>
            {
                using (file)
                {
                    if (consumerStop.IsCancellationRequested)
                    {
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
                MaxDegreeOfParallelism = _options.ConsumerParallelism,
                BoundedCapacity = _options.ConsumerParallelism,
                SingleProducerConstrained = true,
            });

        LoadRun run = LoadRun.Start(files, _options, _time, _instruments, _logger, consumerStop.Token);
        LoadSummary? summary = null;
        try
        {
            await using (run.ConfigureAwait(false))
            {
                while (await run.ReadNextAsync(consumerStop.Token).ConfigureAwait(false) is { } file)
                {
                    if (!file.Succeeded)
                    {
                        file.Dispose();
                        ThrowIfFailedAndThrowing(file);
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

        cancellationToken.ThrowIfCancellationRequested();
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

    private void ThrowIfFailedAndThrowing(LoadedFile file)
    {
        if (file.Error is not null && _options.ErrorHandling == LoadErrorHandling.Throw)
        {
            file.Dispose();
            ExceptionDispatchInfo.Throw(file.Error);
        }
    }
}
