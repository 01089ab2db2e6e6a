using System.Threading.Channels;
using System.Threading.Tasks.Dataflow;
using FastLoad.FileSystem;

namespace FastLoad.Engine;

/// <summary>
/// The pipeline's reads on one storage device: its own parallelism (a live gate in front of a Dataflow block whose
/// MaxDegreeOfParallelism is the ceiling), its own controller and its own I/O threads, so that a slow device does
/// not set the pace of a fast one. Files arrive from the pipeline; the lane takes a delivery slot and a
/// gate slot for each, in its order, and posts it to its read block, which reads it as the direct readers do.
/// </summary>
internal sealed class DeviceLane
{
    private readonly LoadContext _context;
    private readonly DeliveryChannel.DeliveryWriter _delivery;
    private readonly Pipeline _pipeline;

    private readonly Channel<PlannedFile> _input = Channel.CreateUnbounded<PlannedFile>(
        new UnboundedChannelOptions { SingleReader = true, SingleWriter = true });
    private readonly ConcurrencyGate _gate;
    private readonly ParallelismController? _controller;
    private readonly bool _physicalOrder;
    private ReadIssueOrder? _issueOrder;
    private readonly int _ceiling;
    private Task _completion = Task.CompletedTask;
    private DedicatedThreadScheduler? _threads;
    private bool _parallelismCounted;

    public DeviceLane(LoadContext context, DeliveryChannel.DeliveryWriter delivery, Pipeline pipeline, StorageDevice device, int initial, int ceiling, ParallelismController? controller, bool physicalOrder)
    {
        _context = context;
        _delivery = delivery;
        _pipeline = pipeline;
        Device = device;
        InitialParallelism = initial;
        _ceiling = ceiling;
        _controller = controller;
        _physicalOrder = physicalOrder;
        _gate = new ConcurrencyGate(initial);
    }

    public StorageDevice Device { get; }

    public int InitialParallelism { get; }

    public int FileCount { get; private set; }

    public int CurrentParallelism => _controller?.Settled ?? _gate.Limit;

    public IReadOnlyList<int> History => _controller?.History ?? [InitialParallelism];

    public Task Completion => _completion;

    public void Start(IoScheduling scheduling, CancellationToken cancellationToken) =>
        _completion = Task.Run(() => FeedAsync(scheduling, cancellationToken), CancellationToken.None);

    public void Add(PlannedFile file)
    {
        FileCount++;
        _input.Writer.TryWrite(file);
    }

    public void CompleteAdding() => _input.Writer.TryComplete();

    /// <summary>Whether the lane reads its files in physical order: it starts reading only once every file was added.</summary>
    public bool OrdersPhysically => _physicalOrder;

    private async Task FeedAsync(IoScheduling scheduling, CancellationToken cancellationToken)
    {
        // As many threads as the live limit, not the ceiling: the block may start a new task for a file admitted
        // while another task is still finishing, which would otherwise add threads up to the ceiling.
        using DedicatedThreadScheduler? threads = scheduling != IoScheduling.ThreadPool
            ? new DedicatedThreadScheduler(_gate.Limit, $"FastLoad I/O {Device.Name}")
            : null;
        _threads = threads;
        var blockOptions = new ExecutionDataflowBlockOptions
        {
            MaxDegreeOfParallelism = _ceiling,
            BoundedCapacity = _ceiling,
            TaskScheduler = threads ?? TaskScheduler.Default,
            SingleProducerConstrained = true,
            EnsureOrdered = false,
            CancellationToken = cancellationToken,
        };

        // On the shared pool a read waits for the budget without its thread: the consumer frees those bytes, and may
        // need a pool thread to do it.
        var readBlock = threads is null
            ? new ActionBlock<LaneRead>(ReadOneAsync, blockOptions)
            : new ActionBlock<LaneRead>(ReadOne, blockOptions);

        // Files in physical order also reach the device in it, on the lane's own threads (not waiting on the pool's).
        _issueOrder = _physicalOrder && threads is not null && OperatingSystem.IsLinux()
            ? new ReadIssueOrder(_context.Hooks.ReadIssueMaxWait ?? ReadIssueOrder.DefaultMaxWait)
            : null;
        long ticket = 0;

        // A read that throws (reads never throw: this is a bug) faults the block, which drops the files it had accepted
        // and not started: the feeder below would wait for their slots forever, so the fault stops the load at once.
        _ = readBlock.Completion.ContinueWith(
            static (completion, delivery) => ((DeliveryChannel.DeliveryWriter)delivery!).Fail(completion.Exception!.InnerException!),
            _delivery,
            CancellationToken.None,
            TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);

        _parallelismCounted = _context.Instruments.ParallelismChanged(_gate.Limit);
        try
        {
            await foreach (PlannedFile file in OrderedFilesAsync(cancellationToken).ConfigureAwait(false))
            {
                await _delivery.Slots.WaitAsync(cancellationToken).ConfigureAwait(false);
                await _gate.WaitAsync(cancellationToken).ConfigureAwait(false);
                _context.Hooks.OnLaneHandOut?.Invoke(file.Path);
                if (!await readBlock.SendAsync(new LaneRead(file, ticket++), cancellationToken).ConfigureAwait(false))
                {
                    break; // Declined: the block was canceled.
                }
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            // The load was stopped: the reads in flight finish below.
        }
        finally
        {
            if (_parallelismCounted)
            {
                _context.Instruments.ParallelismChanged(-_gate.Limit);
            }

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

    private async IAsyncEnumerable<PlannedFile> OrderedFilesAsync([System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken)
    {
        if (!_physicalOrder)
        {
            await foreach (PlannedFile file in _input.Reader.ReadAllAsync(cancellationToken).ConfigureAwait(false))
            {
                yield return file;
            }

            yield break;
        }

        // A spinning disk: every file of the lane first, then one sweep in the order of their physical location.
        var files = new List<PlannedFile>();
        await foreach (PlannedFile file in _input.Reader.ReadAllAsync(cancellationToken).ConfigureAwait(false))
        {
            files.Add(file);
        }

        FilePlanner.SortPhysically(files);
        foreach (PlannedFile file in files)
        {
            yield return file;
        }
    }

    private void ReadOne(LaneRead read)
    {
        _pipeline.MarkReading();
        long bytes;
        try
        {
            _context.Hooks.OnLaneRead?.Invoke(read.File.Path);
            bytes = BlockingReads.ReadAndPublish(_context, _delivery, read.File.Index, _issueOrder, read.Ticket);
        }
        finally
        {
            _gate.Release();
        }

        Completed(bytes);
    }

    private async Task ReadOneAsync(LaneRead read)
    {
        _pipeline.MarkReading();
        long bytes;
        try
        {
            _context.Hooks.OnLaneRead?.Invoke(read.File.Path);
            bytes = await BlockingReads.ReadAndPublishAsync(_context, _delivery, read.File.Index).ConfigureAwait(false);
        }
        finally
        {
            _gate.Release();
        }

        Completed(bytes);
    }

    private void Completed(long bytes)
    {
        if (_controller?.OnCompleted(bytes, 1) is int limit)
        {
            _threads?.AllowThreads(limit);
            int previous = _gate.SetLimit(limit);

            // Reported as a change, so that the up-down counter sums the limits of the loads running now.
            if (_parallelismCounted)
            {
                _context.Instruments.ParallelismChanged(limit - previous);
            }
        }
    }

    /// <summary>A file handed to the read block, with its place in the lane's order.</summary>
    private readonly record struct LaneRead(PlannedFile File, long Ticket);
}
