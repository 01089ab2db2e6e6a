using System.Buffers;
using System.Diagnostics;
using System.Threading.Channels;
using FastLoad.Diagnostics;
using FastLoad.Internal;
using FastLoad.Parallelism;
using FastLoad.Planning;
using FastLoad.Reading;
using Microsoft.Extensions.Logging;

namespace FastLoad.Loading;

/// <summary>
/// One load: plan -> per-device lanes (delivery slot, byte budget, live parallelism gate, Dataflow read block)
/// -> one channel of outcomes -> delivery. A planner task stats each file and hands it to the lane of its device;
/// each lane feeds its own read block; reads run on dedicated threads (or the pool) and publish every outcome,
/// success or error, to the channel; the consumer side takes files from it (reordering them when asked) and hands
/// them over, releasing their budget.
/// </summary>
internal sealed class LoadRun : IAsyncDisposable
{
    // Files handed over but not yet consumed are bounded by count as well as bytes, so a set of empty or failing
    // files cannot pile up; with input ordering this is also the reorder window, in files per concurrent read.
    private const int DeliveryWindowPerRead = 4;
    private const int MinDeliveryWindow = 64;

    private readonly FileSet _files;
    private readonly FileLoaderOptions _options;
    private readonly ReadSettings _readSettings;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;
    private readonly CancellationTokenSource _stop;
    private readonly Channel<LoadedFile> _results = Channel.CreateUnbounded<LoadedFile>(
        new UnboundedChannelOptions { SingleReader = true, SingleWriter = false });

    private readonly Dictionary<int, LoadedFile> _outOfOrder = [];
    private readonly List<LoadFailure> _failures = [];
    private readonly Dictionary<ulong, DeviceLane> _lanes = [];
    private readonly long _startTimestamp;
    private SemaphoreSlim? _deliverySlots;
    private Task _producer = Task.CompletedTask;
    private int _nextIndex;
    private int _fileCount;
    private long _byteCount;
    private int _concurrentReads;
    private int _peakConcurrentReads;

    private LoadRun(FileSet files, FileLoaderOptions options, TimeProvider time, LoadInstruments instruments, ILogger logger, CancellationToken cancellationToken)
    {
        Instruments = instruments;
        _files = files;
        _options = options;
        _readSettings = ReadSettings.For(options, logger);
        _time = time;
        _logger = logger;
        Budget = new ByteBudget(options.MemoryBudget);
        _stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        _startTimestamp = time.GetTimestamp();
    }

    public ByteBudget Budget { get; }

    public LoadInstruments Instruments { get; }

    public static LoadRun Start(FileSet files, FileLoaderOptions options, TimeProvider time, LoadInstruments instruments, ILogger logger, CancellationToken cancellationToken)
    {
        var run = new LoadRun(files, options, time, instruments, logger, cancellationToken);
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
        // The lane with the most files speaks for the load (most loads touch one device).
        DeviceLane? main = _lanes.Values.MaxBy(lane => lane.FileCount);
        var summary = new LoadSummary(
            _fileCount,
            _byteCount,
            _failures.ToArray(),
            _time.GetElapsedTime(_startTimestamp),
            main?.CurrentParallelism ?? 0,
            main?.InitialParallelism ?? 0,
            main?.History ?? [],
            main?.Device,
            Budget.Peak,
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

    /// <summary>What the file is charged against the budget from before its read is queued until it is handed over.</summary>
    public long BudgetCharge(PlannedFile file) => _readSettings.BudgetCharge(file.Length);

    public Task WaitForDeliverySlotAsync(CancellationToken cancellationToken) => _deliverySlots!.WaitAsync(cancellationToken);

    public void Publish(LoadedFile file)
    {
        if (!_results.Writer.TryWrite(file))
        {
            file.Dispose();
        }
    }

    /// <summary>Reads one file on a read thread and publishes the outcome; returns the bytes read (0 on failure).</summary>
    /// <remarks>Never throws: an ActionBlock would silently swallow an OperationCanceledException thrown from here.</remarks>
    public long ReadAndPublish(PlannedFile file)
    {
        int concurrent = Interlocked.Increment(ref _concurrentReads);
        InterlockedMax.TryRaise(ref _peakConcurrentReads, concurrent);
        Instruments.ReadsActive.Add(1);
        long started = _time.GetTimestamp();
        LoadedFile result;
        try
        {
            FileContents contents = FileReader.Read(file.Path, _readSettings, _stop.Token);
            long length = contents.Length;
            long charge = BudgetCharge(file);
            long actual = _readSettings.BudgetCharge(length);
            if (actual > charge)
            {
                // The file grew after it was planned; the bytes are already read, so they are charged without waiting.
                Budget.ForceAcquire(actual - charge);
                charge = actual;
            }

            result = new LoadedFile(file.Path, file.Index, contents, charge);
            _logger.FileLoaded(file.Path, length);
            Instruments.FilesRead.Add(1);
            Instruments.BytesRead.Add(length);
        }
        catch (Exception ex)
        {
            result = new LoadedFile(file.Path, file.Index, ex, BudgetCharge(file));
            Instruments.FilesFailed.Add(1);
        }
        finally
        {
            Interlocked.Decrement(ref _concurrentReads);
            Instruments.ReadsActive.Add(-1);
            Instruments.ReadDuration.Record(_time.GetElapsedTime(started).TotalSeconds);
        }

        Publish(result);
        return result.Length;
    }

    private LoadedFile HandOver(LoadedFile file)
    {
        Budget.Release(file.BudgetCharge);
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
        (List<string> paths, HashSet<int> undecodable) = FilePlanner.Enumerate(_files, cancellationToken);
        Dictionary<int, PlannedFile> sample = FilePlanner.PlanSample(paths, undecodable);
        long meanLength = ParallelismPolicy.MeanLength(sample.Values.Where(file => file.Error is null).Select(file => file.Length).ToList());
        _logger.LoadStarting(paths.Count, _files, meanLength);
        int deliveryWindow = Math.Max(MinDeliveryWindow, DeliveryWindowPerRead * Math.Min(paths.Count, ParallelismPolicy.MaxAdaptiveDepth));
        _deliverySlots = new SemaphoreSlim(deliveryWindow);

        // Input order needs one feeder (slots and budget are taken in the set's order), so one lane for all devices.
        bool lanePerDevice = _options.Ordering == LoadOrdering.Completion;
        DeviceLane? previous = null;
        try
        {
            for (int index = 0; index < paths.Count; index++)
            {
                if ((index & 255) == 0)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                }

                // Planned just before it is queued (the sample's files once, before the first), so that reading starts
                // without waiting for every file's status.
                PlannedFile file = sample.Remove(index, out PlannedFile sampled) ? sampled : FilePlanner.Plan(index, paths[index], undecodable.Contains(index));

                // A file that failed to plan is only reported: it goes to a lane that exists rather than open one of its own.
                DeviceLane? lane = file.Error is not null ? previous : null;
                ulong key = lanePerDevice ? file.DeviceId : 0;
                if (lane is null && !_lanes.TryGetValue(key, out lane))
                {
                    lane = CreateLane(file, meanLength, paths.Count);
                    _lanes.Add(key, lane);
                    lane.Start(_options.Scheduling, cancellationToken);
                }

                lane.Add(file);
                previous = lane;
            }
        }
        finally
        {
            foreach (DeviceLane lane in _lanes.Values)
            {
                lane.CompleteAdding();
            }

            await Task.WhenAll(_lanes.Values.Select(lane => lane.Completion)).ConfigureAwait(false);
        }
    }

    private DeviceLane CreateLane(PlannedFile first, long meanLength, int fileCount)
    {
        StorageDevice device = DescribeDevice(first);
        StorageKind kind = _options.Storage ?? device.Kind;
        int initial;
        int ceiling;
        ParallelismController? controller = null;
        if (_options.MaxDegreeOfParallelism is int pinned)
        {
            initial = ceiling = pinned;
        }
        else
        {
            initial = ParallelismPolicy.Choose(kind, meanLength, fileCount, _options.MemoryBudget, Environment.ProcessorCount);
            ceiling = _options.Adaptive ? ParallelismPolicy.Ceiling(initial, meanLength, fileCount, _options.MemoryBudget) : initial;
            if (_options.Adaptive && ceiling > 1)
            {
                controller = new ParallelismController(initial, ceiling, countFiles: meanLength <= ParallelismPolicy.SmallFileLimit, _time);
            }
        }

        bool physicalOrder = PhysicalLayout.IsSupported && _options.PhysicalOrder switch
        {
            PhysicalOrder.On => true,
            PhysicalOrder.Auto => kind == StorageKind.Rotational && _options.Ordering == LoadOrdering.Completion,
            _ => false,
        };
        _logger.LaneStarting(device.ToString(), kind, initial, ceiling, controller is not null, physicalOrder);
        return new DeviceLane(this, device, initial, ceiling, controller, physicalOrder);
    }

    private static StorageDevice DescribeDevice(PlannedFile file)
    {
        try
        {
            return file.DeviceId != 0 && OperatingSystem.IsLinux()
                ? StorageProbe.DescribeDevice(file.DeviceId)
                : StorageProbe.Describe(Path.GetDirectoryName(Path.GetFullPath(file.Path)) ?? file.Path);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException)
        {
            // Files that failed to plan, or a device that cannot be examined: the default policy applies.
            return StorageDevice.Unknown;
        }
    }
}
