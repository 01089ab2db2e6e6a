using FastLoad.FileSystem;

namespace FastLoad.Engine;

/// <summary>What the pipeline's main lane did, for the load's summary.</summary>
internal sealed record PipelineSummary(int CurrentParallelism, int InitialParallelism, IReadOnlyList<int> History, StorageDevice Device);

/// <summary>
/// The adaptive read path of a load: claims files from the load's cursor and hands each to the lane of its device,
/// which reads it at a parallelism its controller corrects from measured throughput, in physical order on a spinning
/// disk. Large sets and spinning disks use it; it runs beside the direct readers until it reads, then alone.
/// </summary>
internal sealed class Pipeline(
    LoadContext context, DeliveryChannel.DeliveryWriter delivery, LoadReaders readers, StorageDevice? firstDevice, DirectoryDevices? knownDevices)
{
    // Files statted for the lanes' size prior when no read has told it yet (a load the pipeline starts alone).
    private const int SampleSize = 16;

    private readonly Dictionary<ulong, DeviceLane> _lanes = [];
    private readonly TaskCompletionSource _firstRead = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private StorageDevice? _firstDevice = firstDevice;
    private volatile bool _reading;

    /// <summary>Completes when every file the pipeline claimed was read and published.</summary>
    public Task Completion { get; private set; } = Task.CompletedTask;

    /// <summary>Whether a lane has started reading (the direct readers then stop).</summary>
    public bool IsReading => _reading;

    /// <summary>
    /// Starts the pipeline; it describes the storage itself when <paramref name="firstDevice"/> is not known yet, and
    /// reuses the folders' devices already looked up in <paramref name="knownDevices"/> (each folder is examined once).
    /// </summary>
    public static Pipeline Start(LoadContext context, DeliveryChannel.DeliveryWriter delivery, LoadReaders readers, StorageDevice? firstDevice, DirectoryDevices? knownDevices)
    {
        var pipeline = new Pipeline(context, delivery, readers, firstDevice, knownDevices);
        pipeline.Completion = Task.Run(pipeline.ProduceAsync, CancellationToken.None);
        return pipeline;
    }

    public void MarkReading()
    {
        if (!_reading)
        {
            _reading = true;
            _firstRead.TrySetResult();
        }
    }

    /// <summary>The lane with the most files speaks for the load (most loads touch one device).</summary>
    public PipelineSummary? Summary()
    {
        DeviceLane? main = null;
        foreach (DeviceLane lane in _lanes.Values)
        {
            if (main is null || lane.FileCount > main.FileCount)
            {
                main = lane;
            }
        }

        return main is null || main.FileCount == 0 ? null : new PipelineSummary(main.CurrentParallelism, main.InitialParallelism, main.History, main.Device);
    }

    private async Task ProduceAsync()
    {
        try
        {
            await ProduceCoreAsync().ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (context.StopToken.IsCancellationRequested)
        {
            // The load was stopped; what was claimed and not read is never handed over.
        }
        catch (Exception ex)
        {
            delivery.Fail(ex);
        }
    }

    private async Task ProduceCoreAsync()
    {
        CancellationToken cancellationToken = context.StopToken;

        // Input order needs one feeder (slots are taken in the set's order), so one lane for all devices.
        DirectoryDevices? devices = context.Options.Ordering == LoadOrdering.Completion ? knownDevices ?? new DirectoryDevices() : null;
        bool waitForFirstRead = readers.HasDirectReaders;
        try
        {
            while (!cancellationToken.IsCancellationRequested && context.Files.TryClaim(out int index))
            {
                string path = context.Files.PathAt(index);
                ulong key = devices?.Of(path) ?? 0;
                if (!_lanes.TryGetValue(key, out DeviceLane? lane))
                {
                    lane = CreateLane(key, index);
                    _lanes.Add(key, lane);
                    lane.Start(context.Options.Scheduling, cancellationToken);
                }

                lane.Add(new PlannedFile(index, path, key));
                if (!_reading && waitForFirstRead && !lane.OrdersPhysically && !readers.Retired)
                {
                    // Until a lane reads (in a new process its code is still being compiled), the direct readers
                    // take the other files; the pipeline then takes every file left. A lane in physical order reads
                    // only once it has every file, so the pipeline never waits on one.
                    await _firstRead.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
                }
            }
        }
        finally
        {
            // Every lane is waited for, even when one failed: the load must not release what another still reads into.
            var completions = new Task[_lanes.Count];
            int lanes = 0;
            foreach (DeviceLane lane in _lanes.Values)
            {
                lane.CompleteAdding();
                completions[lanes++] = lane.Completion;
            }

            await Task.WhenAll(completions).ConfigureAwait(false);
        }
    }

    private DeviceLane CreateLane(ulong deviceId, int firstIndex)
    {
        StorageDevice device = _lanes.Count == 0 || deviceId == 0 ? _firstDevice ??= readers.DescribeDevice(context.Files.PathAt(firstIndex)) : DescribeDevice(deviceId);
        FileLoaderOptions options = context.Options;
        StorageKind kind = options.Storage ?? device.Kind;
        long meanLength = delivery.MeanLengthSeen(fallback: 0) is > 0 and long seen ? seen : SampleMeanLength(firstIndex);
        int fileCount = Math.Max(1, context.Files.Left + 1);
        int initial;
        int ceiling;
        ParallelismController? controller = null;
        if (options.MaxDegreeOfParallelism is int pinned)
        {
            initial = ceiling = pinned;
        }
        else
        {
            initial = ParallelismPolicy.Choose(kind, meanLength, fileCount, options.MemoryBudget, Environment.ProcessorCount);
            ceiling = options.Adaptive ? ParallelismPolicy.Ceiling(kind, initial, meanLength, fileCount, options.MemoryBudget) : initial;
            if (options.Adaptive && ParallelismPolicy.Adapts(kind) && ceiling > 1)
            {
                controller = new ParallelismController(initial, ceiling, countFiles: meanLength <= ParallelismPolicy.SmallFileLimit, context.Time);
            }
        }

        bool physicalOrder = PhysicalLayout.IsSupported && options.PhysicalOrder switch
        {
            PhysicalOrder.On => true,
            PhysicalOrder.Auto => kind == StorageKind.Rotational && options.Ordering == LoadOrdering.Completion,
            _ => false,
        };
        context.Logger?.LaneStarting(device.ToString(), kind, initial, ceiling, controller is not null, physicalOrder);
        return new DeviceLane(context, delivery, this, device, initial, ceiling, controller, physicalOrder);
    }

    /// <summary>The mean size of a few files spread over the set from <paramref name="first"/> on (statted: no read has told it yet).</summary>
    private long SampleMeanLength(int first)
    {
        int count = context.Files.Count - first;
        int samples = Math.Min(SampleSize, count);
        long total = 0;
        int regular = 0;
        for (int i = 0; i < samples; i++)
        {
            // A file that cannot be described is left out: reading it reports its problem.
            if (FileStatus.TryGet(context.Files.PathAt(first + (int)((long)i * count / samples)), out FileStatus status) && status.Kind == FileKind.Regular)
            {
                total += status.Length;
                regular++;
            }
        }

        return regular == 0 ? 1 : Math.Max(1, total / regular);
    }

    private static StorageDevice DescribeDevice(ulong deviceId)
    {
        try
        {
            return OperatingSystem.IsLinux() ? StorageProbe.DescribeDevice(deviceId) : StorageDevice.Unknown;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException)
        {
            return StorageDevice.Unknown;
        }
    }
}
