using System.Buffers;
using System.Diagnostics;
using System.Threading.Channels;
using System.Threading.Tasks.Dataflow;
using FastLoad.Diagnostics;
using FastLoad.Internal;
using FastLoad.Parallelism;
using FastLoad.Planning;
using FastLoad.Reading;
using Microsoft.Extensions.Logging;

namespace FastLoad.Loading;

/// <summary>
/// One load: plan -> budget gate -> Dataflow read block -> delivery. A producer task plans the files, takes the
/// byte budget and a delivery slot for each in input order, and posts it to the read block; reads run on dedicated
/// threads (or the pool) and write every outcome, success or error, to a channel; the consumer side takes files
/// from the channel (reordering them when asked) and hands them over, releasing their budget.
/// </summary>
internal sealed class LoadRun : IAsyncDisposable
{
    // Files handed over but not yet consumed are bounded by count as well as bytes, so a set of empty or failing
    // files cannot pile up; with input ordering this is also the reorder window, in files per concurrent read.
    private const int DeliveryWindowPerRead = 4;
    private const int MinDeliveryWindow = 64;

    private readonly FileSet _files;
    private readonly FileLoaderOptions _options;
    private readonly ArrayPool<byte> _pool;
    private readonly ILogger _logger;
    private readonly CancellationTokenSource _stop;
    private readonly Channel<LoadedFile> _results = Channel.CreateUnbounded<LoadedFile>(
        new UnboundedChannelOptions { SingleReader = true, SingleWriter = false });

    private readonly ByteBudget _budget;
    private readonly Dictionary<int, LoadedFile> _outOfOrder = [];
    private readonly List<LoadFailure> _failures = [];
    private readonly long _startTimestamp;
    private SemaphoreSlim? _deliverySlots;
    private Task _producer = Task.CompletedTask;
    private int _nextIndex;
    private int _fileCount;
    private long _byteCount;
    private int _degreeOfParallelism;
    private int _concurrentReads;
    private int _peakConcurrentReads;

    private LoadRun(FileSet files, FileLoaderOptions options, ILogger logger, CancellationToken cancellationToken)
    {
        _files = files;
        _options = options;
        _pool = options.BufferPool ?? ArrayPool<byte>.Shared;
        _logger = logger;
        _budget = new ByteBudget(options.MemoryBudget);
        _stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        _startTimestamp = Stopwatch.GetTimestamp();
    }

    public static LoadRun Start(FileSet files, FileLoaderOptions options, ILogger logger, CancellationToken cancellationToken)
    {
        var run = new LoadRun(files, options, logger, cancellationToken);
        run._producer = Task.Run(run.ProduceAsync, CancellationToken.None);
        return run;
    }

    /// <summary>Returns the next file to hand over, or <see langword="null"/> when every file was delivered.</summary>
    public async ValueTask<LoadedFile?> ReadNextAsync(CancellationToken cancellationToken)
    {
        ChannelReader<LoadedFile> reader = _results.Reader;
        while (true)
        {
            if (_outOfOrder.Remove(_nextIndex, out LoadedFile? due))
            {
                _nextIndex++;
                return HandOver(due);
            }

            if (reader.TryRead(out LoadedFile? file))
            {
                if (_options.Ordering == LoadOrdering.Completion)
                {
                    return HandOver(file);
                }

                _outOfOrder.Add(file.Index, file);
                continue;
            }

            if (!await reader.WaitToReadAsync(cancellationToken).ConfigureAwait(false))
            {
                // Every result is in; this rethrows what stopped the producer (a missing root directory, say).
                await _producer.ConfigureAwait(false);
                Debug.Assert(_outOfOrder.Count == 0, "Every planned file yields exactly one result.");
                return null;
            }
        }
    }

    public LoadSummary Complete()
    {
        var summary = new LoadSummary(
            _fileCount,
            _byteCount,
            _failures.ToArray(),
            Stopwatch.GetElapsedTime(_startTimestamp),
            _degreeOfParallelism,
            _budget.Peak,
            Volatile.Read(ref _peakConcurrentReads));
        _logger.LoadCompleted(summary.FileCount, summary.ByteCount, (long)summary.Elapsed.TotalMilliseconds, summary.DegreeOfParallelism, summary.Failures.Count);
        return summary;
    }

    /// <summary>Stops the load, waits for reads in flight, and returns the buffer of every file not handed over.</summary>
    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        try
        {
            await _producer.ConfigureAwait(false);
        }
        catch
        {
            // Already surfaced through ReadNextAsync, or irrelevant once the consumer has stopped.
        }

        while (_results.Reader.TryRead(out LoadedFile? file))
        {
            file.Dispose();
        }

        foreach (LoadedFile file in _outOfOrder.Values)
        {
            file.Dispose();
        }

        _outOfOrder.Clear();
        _deliverySlots?.Dispose();
        _stop.Dispose();
    }

    private LoadedFile HandOver(LoadedFile file)
    {
        _budget.Release(file.BudgetCharge);
        _deliverySlots!.Release();
        if (file.Error is null)
        {
            _fileCount++;
            _byteCount += file.Length;
        }
        else
        {
            _failures.Add(new LoadFailure(file.Path, file.Error));
            _logger.FileFailed(file.Path, file.Error);
        }

        return file;
    }

    private async Task ProduceAsync()
    {
        try
        {
            await ProduceCoreAsync().ConfigureAwait(false);
        }
        finally
        {
            _results.Writer.TryComplete();
        }
    }

    private async Task ProduceCoreAsync()
    {
        CancellationToken cancellationToken = _stop.Token;
        List<string> paths = FilePlanner.Enumerate(_files, cancellationToken);
        int parallelism = _options.MaxDegreeOfParallelism
            ?? ParallelismPolicy.Choose(FilePlanner.SampleLengths(paths), paths.Count, _options.MemoryBudget, Environment.ProcessorCount);
        _degreeOfParallelism = parallelism;
        int readers = Math.Clamp(paths.Count, 1, parallelism);
        _deliverySlots = new SemaphoreSlim(Math.Max(MinDeliveryWindow, DeliveryWindowPerRead * parallelism));
        _logger.LoadStarting(paths.Count, _files, parallelism, _options.Scheduling);

        using DedicatedThreadScheduler? threads = _options.Scheduling == IoScheduling.DedicatedThreads
            ? new DedicatedThreadScheduler(readers, "FastLoad I/O")
            : null;
        var readBlock = new ActionBlock<PlannedFile>(
            ReadOne,
            new ExecutionDataflowBlockOptions
            {
                MaxDegreeOfParallelism = readers,
                BoundedCapacity = readers,
                TaskScheduler = threads ?? TaskScheduler.Default,
                SingleProducerConstrained = true,
                EnsureOrdered = false,
                CancellationToken = cancellationToken,
            });

        try
        {
            for (int index = 0; index < paths.Count; index++)
            {
                await _deliverySlots.WaitAsync(cancellationToken).ConfigureAwait(false);

                // Planned just before it is queued, so that reading starts without waiting for every file's status.
                PlannedFile file = FilePlanner.Plan(index, paths[index]);
                if (file.Error is not null)
                {
                    Publish(new LoadedFile(file.Path, file.Index, file.Error, budgetCharge: 0));
                    continue;
                }

                await _budget.AcquireAsync(file.Length, cancellationToken).ConfigureAwait(false);
                if (!await readBlock.SendAsync(file, cancellationToken).ConfigureAwait(false))
                {
                    break; // Declined: the block was canceled.
                }
            }
        }
        finally
        {
            readBlock.Complete();
            try
            {
                await readBlock.Completion.ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                // The load was stopped; the reads in flight have finished and published their files.
            }
        }
    }

    // Runs on a read thread. Every outcome is published, so none can vanish (an ActionBlock would silently swallow
    // an OperationCanceledException thrown from here).
    private void ReadOne(PlannedFile file)
    {
        int concurrent = Interlocked.Increment(ref _concurrentReads);
        InterlockedMax(ref _peakConcurrentReads, concurrent);
        LoadedFile result;
        try
        {
            byte[] buffer = WholeFileReader.Read(file.Path, _pool, out int length, _stop.Token);
            long charge = file.Length;
            if (length > charge)
            {
                // The file grew after it was planned; the bytes are already read, so they are charged without waiting.
                _budget.ForceAcquire(length - charge);
                charge = length;
            }

            result = new LoadedFile(file.Path, file.Index, buffer, length, _pool, charge);
            _logger.FileLoaded(file.Path, length);
        }
        catch (Exception ex)
        {
            result = new LoadedFile(file.Path, file.Index, ex, file.Length);
        }
        finally
        {
            Interlocked.Decrement(ref _concurrentReads);
        }

        Publish(result);
    }

    private void Publish(LoadedFile file)
    {
        if (!_results.Writer.TryWrite(file))
        {
            file.Dispose();
        }
    }

    private static void InterlockedMax(ref int location, int value)
    {
        int current = Volatile.Read(ref location);
        while (value > current)
        {
            int seen = Interlocked.CompareExchange(ref location, value, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }
}
