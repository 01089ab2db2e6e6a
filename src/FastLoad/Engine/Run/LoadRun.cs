using System.Runtime.ExceptionServices;
using System.Threading.Tasks.Sources;
using FastLoad.FileSystem;
using Microsoft.Extensions.Logging;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Engine;

/// <summary>
/// One load. Its files are claimed, in the set's order, from one cursor by two kinds of reader: direct readers (a few
/// threads started at once, each reading one file after another, their number corrected by a controller on a large
/// set) and the adaptive pipeline (per-device lanes: a live parallelism gate in front of a Dataflow read block).
/// Direct readers start the load without waiting for anything to be prepared; a spinning disk, or a large set that
/// spans devices, starts the pipeline beside them, and they stop once it reads. A set of a few files is read by the
/// calling thread alone.
/// Every file read, success or error, is published to the consumer side, which hands files over in completion or
/// input order and releases their budget.
/// </summary>
/// <remarks>
/// The start path uses only the runtime's precompiled code (no generic instantiations over this library's value types,
/// no async state machines, no Dataflow), so that the first load of a process spends its time reading, not compiling.
/// </remarks>
internal sealed class LoadRun : IAsyncEnumerator<LoadedFile>, IValueTaskSource<bool>
{
    // Files handed over but not yet consumed are bounded by count as well as bytes, so a set of empty or failing
    // files cannot pile up; with input ordering this is also the reorder window, in files per concurrent read.
    private const int DeliveryWindowPerRead = 4;
    private const int MinDeliveryWindow = 64;

    // Sets up to this size are read on the calling thread alone, as a loop would read them: in a new process, starting
    // reader threads and describing the storage cost more than the reads they would overlap.
    internal const int CallerAloneThreshold = 16;

    private readonly FileSet _files;
    private readonly FileLoaderOptions _options;
    private readonly ReadSettings _readSettings;
    private readonly TimeProvider _time;
    private readonly ILogger? _logger;
    private readonly LoadInstruments _instruments;
    private readonly CancellationTokenSource _stop;
    private readonly CancellationToken _cancellationToken;
    private readonly CancellationToken _enumeratorCancellationToken;
    private readonly bool _inputOrder;
    private readonly long _startTimestamp;

    // Consumer side, guarded by _sync.
    private readonly object _sync = new();
    private readonly Queue<LoadedFile> _ready = new();
    private readonly Dictionary<int, LoadedFile>? _outOfOrder;
    private List<LoadFailure>? _failures;
    private ManualResetValueTaskSourceCore<bool> _signal;
    private bool _consumerWaiting;
    private bool _consumerBlocked;
    private Exception? _fault;
    private int _nextIndex;
    private int _handedOver;
    private int _fileCount;
    private long _byteCount;

    private string[] _paths = [];
    private HashSet<int>? _undecodable;
    private SemaphoreSlim? _deliverySlots;
    private CancellationTokenRegistration _stopRegistration;
    private bool _started;
    private bool _callerReadsAlone;

    // Set when the storage leaves no direct readers (a spinning disk): the pipeline alone takes files, the caller too stops.
    private volatile bool _readersRetired;
    private bool _finished;
    private bool _disposed;
    private int _claimed;

    // Reads: sizes seen (the pipeline's prior), concurrency, the readers still running.
    private long _bytesSeen;
    private int _filesSeen;
    private int _concurrentReads;
    private int _peakConcurrentReads;
    private int _activeReaders;
    private TaskCompletionSource? _readersExited;

    private CallerFile? _callerFile;
    private RingReader? _ring;
    private DirectReaders? _directReaders;
    private Pipeline? _pipeline;
    private StorageDevice? _device;

    /// <summary>Prepares a load; it starts on the first <see cref="MoveNextAsync"/>. Both tokens stop it (the second is an enumeration's own).</summary>
    public LoadRun(FileSet files, LoadEngine engine, CancellationToken cancellationToken, CancellationToken enumeratorCancellationToken = default)
    {
        _files = files;
        _options = engine.Options;
        _readSettings = engine.CreateReadSettings();
        _time = engine.Time;
        _instruments = engine.Instruments;
        _logger = engine.Logger;
        Hooks = engine.Hooks;
        _inputOrder = _options.Ordering == LoadOrdering.Input;
        _outOfOrder = _inputOrder ? [] : null;
        Budget = new ByteBudget(_options.MemoryBudget);
        if (!cancellationToken.CanBeCanceled || cancellationToken == enumeratorCancellationToken)
        {
            cancellationToken = enumeratorCancellationToken;
            enumeratorCancellationToken = default;
        }

        _stop = (cancellationToken.CanBeCanceled, enumeratorCancellationToken.CanBeCanceled) switch
        {
            (true, true) => CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, enumeratorCancellationToken),
            (true, false) => CancellationTokenSource.CreateLinkedTokenSource(cancellationToken),
            _ => new CancellationTokenSource(),
        };
        _cancellationToken = cancellationToken;
        _enumeratorCancellationToken = enumeratorCancellationToken;
        _startTimestamp = _time.GetTimestamp();
    }

    public ByteBudget Budget { get; }

    public FileLoaderOptions Options => _options;

    /// <summary>Where to log; <see langword="null"/> when the loader has no logger, so that logging costs nothing.</summary>
    public ILogger? Logger => _logger;

    public LoadInstruments Instruments => _instruments;

    public TimeProvider Time => _time;

    public LoadTestHooks Hooks { get; }

    public ReadSettings ReadSettings => _readSettings;

    public CancellationToken StopToken => _stop.Token;

    /// <summary>The file <see cref="MoveNextAsync"/> handed over last.</summary>
    public LoadedFile Current { get; private set; } = null!;

    /// <summary>Whether the direct readers should stop taking files: the pipeline reads now, or the load stops.</summary>
    internal bool DirectReadersRetired => _readersRetired || Volatile.Read(ref _pipeline)?.IsReading == true || _stop.IsCancellationRequested;

    /// <summary>Hands over the next file; <see langword="false"/> when every file was handed over.</summary>
    /// <remarks>
    /// Reads on the calling thread while no file is ready and direct readers are starting, rather than wait for them.
    /// A failed file is thrown with <see cref="LoadErrorHandling.Throw"/>.
    /// </remarks>
    public ValueTask<bool> MoveNextAsync()
    {
        if (!_started)
        {
            Start();
        }

        while (true)
        {
            if (_ring?.HasResults == true)
            {
                // Turns finished reads into new ones while the consumer works, so that the kernel's queue stays full.
                _ring.Pump(wait: false);
            }

            LoadedFile? file;
            lock (_sync)
            {
                // A stopped load hands over nothing more, even files already read: the consumer asked for the stop.
                if (_stop.IsCancellationRequested)
                {
                    ThrowIfStoppedLocked();
                }

                if (!TryTakeLocked(out file))
                {
                    if (_handedOver == _paths.Length)
                    {
                        return new ValueTask<bool>(Finished());
                    }

                    ThrowIfStoppedLocked();
                }
            }

            if (file is not null)
            {
                return new ValueTask<bool>(HandOver(file));
            }

            // Nothing is ready: the ring's reads are waited for in the kernel; otherwise the caller reads the next file
            // itself rather than sleep while the readers start. A pinned parallelism is a promise about reads at once,
            // which the caller's read would break.
            if (_ring is not null
                ? _ring.Pump(wait: true)
                : _callerFile is not null
                    ? TryFinishCallerRead()
                    : (_directReaders is not null || _callerReadsAlone)
                        && _options.MaxDegreeOfParallelism is null
                        && !DirectReadersRetired
                        && TryClaim(wait: false, out int index)
                        && TryCallerRead(index))
            {
                continue;
            }

            lock (_sync)
            {
                if (_ready.Count > 0
                    || _outOfOrder?.ContainsKey(_nextIndex) == true
                    || _handedOver == _paths.Length
                    || _fault is not null
                    || _stop.IsCancellationRequested)
                {
                    continue;
                }

                if (SynchronizationContext.Current is null && ThreadPool.ThreadCount == 0)
                {
                    // A new process has no pool threads yet to run an asynchronous continuation on: starting them costs
                    // more than the reads in flight take, so the calling thread waits for those, as a loop would.
                    _consumerBlocked = true;
                    Monitor.Wait(_sync);
                    _consumerBlocked = false;
                    continue;
                }

                // Set here, not in the constructor: a load that never waits asynchronously then needs no code compiled for it.
                _signal.RunContinuationsAsynchronously = true;
                _signal.Reset();
                _consumerWaiting = true;
                return new ValueTask<bool>(this, _signal.Version);
            }
        }
    }

    bool IValueTaskSource<bool>.GetResult(short token)
    {
        _signal.GetResult(token);
        LoadedFile? file;
        lock (_sync)
        {
            if (!TryTakeLocked(out file))
            {
                ThrowIfStoppedLocked();
                return Finished();
            }
        }

        return HandOver(file);
    }

    ValueTaskSourceStatus IValueTaskSource<bool>.GetStatus(short token) => _signal.GetStatus(token);

    void IValueTaskSource<bool>.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _signal.OnCompleted(continuation, state, token, flags);

    /// <summary>What the load did, once every file was handed over.</summary>
    public LoadSummary Complete()
    {
        PipelineSummary? lane = _pipeline?.Summary();
        int threads = DirectThreads;
        var summary = new LoadSummary(
            _fileCount,
            _byteCount,
            _failures?.ToArray() ?? [],
            _time.GetElapsedTime(_startTimestamp),
            lane?.CurrentParallelism ?? threads,
            lane?.InitialParallelism ?? _directReaders?.InitialThreads ?? threads,
            lane?.History ?? _directReaders?.History ?? (threads > 0 ? [threads] : []),
            // Described when asked for: the first reader may still be at it (it costs a new process more than a small load).
            () => lane?.Device ?? Volatile.Read(ref _device) ?? (_paths.Length == 0 ? null : DescribeDevice(_paths[0])),
            Budget.Peak,
            Volatile.Read(ref _peakConcurrentReads));
        return summary;
    }

    /// <summary>Stops the load, waits for the reads in flight, and returns the buffer of every file not handed over.</summary>
    public ValueTask DisposeAsync()
    {
        if (_disposed)
        {
            return default;
        }

        lock (_sync)
        {
            _disposed = true;
        }

        _stop.Cancel();

        // The kernel writes into the ring's buffers until its reads complete: waited for before anything is returned.
        _ring?.Dispose();
        Task readersExited;
        lock (_sync)
        {
            WaitForIdleReadersLocked();

            readersExited = _activeReaders == 0
                ? Task.CompletedTask
                : (_readersExited ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;
        }

        if (readersExited.IsCompleted && _pipeline is null)
        {
            Release();
            return default;
        }

        return DisposeSlowAsync(readersExited);
    }

    private async ValueTask DisposeSlowAsync(Task readersExited)
    {
        await readersExited.ConfigureAwait(false);
        if (_pipeline is not null)
        {
            await _pipeline.Completion.ConfigureAwait(false);
        }

        Release();
    }

    /// <summary>Returns what was read and not handed over, and the load's own resources.</summary>
    private void Release()
    {
        _callerFile?.Handle.Dispose();
        _callerFile = null;
        lock (_sync)
        {
            while (_ready.TryDequeue(out LoadedFile? file))
            {
                file.Dispose();
            }

            if (_outOfOrder is not null)
            {
                foreach (LoadedFile file in _outOfOrder.Values)
                {
                    file.Dispose();
                }

                _outOfOrder.Clear();
            }
        }

        _stopRegistration.Dispose();
        _deliverySlots?.Dispose();
        _stop.Dispose();
        if (_started && _directReaders is null && _pipeline is null)
        {
            // Readers start the instruments' creation on their way out; a load without any starts it here.
            _instruments.RequestCreation();
        }
    }

    /// <summary>Claims the next file of the set for a reader; <see langword="false"/> when none is left or the load stops.</summary>
    /// <remarks><paramref name="wait"/>: whether to wait for a delivery slot (a reader) or give up at once (the consumer's thread).</remarks>
    internal bool TryClaim(bool wait, out int index)
    {
        index = -1;
        if (Volatile.Read(ref _claimed) >= _paths.Length)
        {
            return false;
        }

        // The slot is taken before the file is claimed: a reader waiting for one must not hold back a file that
        // delivery in input order waits for.
        if (wait)
        {
            try
            {
                _deliverySlots!.Wait(_stop.Token);
            }
            catch (OperationCanceledException)
            {
                return false;
            }
        }
        else if (!_deliverySlots!.Wait(0))
        {
            return false;
        }

        return TryClaimIndex(out index) || ReleaseSlot();
    }

    /// <summary>Claims the next file without a delivery slot (the pipeline takes its slots in its own order).</summary>
    internal bool TryClaimIndex(out int index)
    {
        index = Interlocked.Increment(ref _claimed) - 1;
        return index < _paths.Length;
    }

    internal string PathAt(int index) => _paths[index];

    internal int PathCount => _paths.Length;

    internal bool HasDirectReaders => _directReaders is not null;

    /// <summary>The threads reading without the pipeline where it settled: the caller alone counts as one.</summary>
    private int DirectThreads => _ring?.Depth ?? (_callerReadsAlone ? 1 : _directReaders?.SettledThreads ?? 0);

    internal SemaphoreSlim DeliverySlots => _deliverySlots!;

    internal int FilesLeft => Math.Max(0, _paths.Length - Volatile.Read(ref _claimed));

    /// <summary>The mean size of the files read so far, or <paramref name="fallback"/> before any.</summary>
    internal long MeanLengthSeen(long fallback)
    {
        int files = Volatile.Read(ref _filesSeen);
        return files == 0 ? fallback : Math.Max(1, Volatile.Read(ref _bytesSeen) / files);
    }

    /// <summary>Reads one file and publishes the outcome; returns the bytes read (0 on failure). Never throws.</summary>
    internal long ReadAndPublish(int index) => ReadAndPublish(index, opened: null);

    /// <summary>Reads a file opened elsewhere, whose <paramref name="charge"/> is taken, and publishes the outcome. Never throws.</summary>
    internal void ReadOpenedAndPublish(int index, SafeFileHandle handle, long length, long charge) =>
        ReadAndPublish(index, new CallerFile(index, handle, length, charge));

    /// <summary>Reads a file opened elsewhere, whose charge is taken, on a reader thread; <see cref="DisposeAsync"/> waits for it.</summary>
    internal void ReadOpenedOnReaderThread(int index, SafeFileHandle handle, long length, long charge)
    {
        ReaderStarted();
        try
        {
            ReaderThreadPool.Shared.Run(static read => ((OpenedRead)read!).Run(), new OpenedRead(this, index, handle, length, charge));
        }
        catch (Exception ex)
        {
            // No thread could be started: the file fails, the others go on.
            handle.Dispose();
            Budget.Release(charge);
            PublishFailure(index, ex);
            ReaderExited();
        }
    }

    /// <summary>Publishes a file read elsewhere (the ring), its bytes charged to the budget.</summary>
    internal void PublishRead(int index, FileContents contents, long charge, long startedTimestamp)
    {
        string path = _paths[index];
        Interlocked.Add(ref _bytesSeen, contents.Length);
        Interlocked.Increment(ref _filesSeen);
        _instruments.FileRead(contents.Length, _time.GetElapsedTime(startedTimestamp));
        _logger?.FileLoaded(path, contents.Length);
        Publish(new LoadedFile(path, index, contents, charge));
    }

    /// <summary>Publishes the failure to open or read a file.</summary>
    internal void PublishFailure(int index, Exception openFailure)
    {
        _instruments.FileFailed();
        Publish(Failed(index, _paths[index], openFailure));
    }

    private LoadedFile Failed(int index, string path, Exception ex) =>
        new(path, index, ex is FileNotFoundException notFound ? FilePlanner.ExplainNotFound(path, notFound) : ex, budgetCharge: 0);

    /// <remarks><paramref name="opened"/>: the file, opened and charged already by the consumer's thread.</remarks>
    private long ReadAndPublish(int index, CallerFile? opened)
    {
        string path = _paths[index];
        int concurrent = Interlocked.Increment(ref _concurrentReads);
        InterlockedMax.TryRaise(ref _peakConcurrentReads, concurrent);
        bool counted = _instruments.ReadStarted();
        long started = _time.GetTimestamp();
        LoadedFile result;
        try
        {
            result = opened is null ? Read(index, path) : ReadOpened(index, path, opened.Handle, opened.Length, opened.Charge);
            _instruments.FileRead(result.Length, _time.GetElapsedTime(started));
            _logger?.FileLoaded(path, result.Length);
        }
        catch (Exception ex)
        {
            result = Failed(index, path, ex);
            _instruments.FileFailed();
        }
        finally
        {
            Interlocked.Decrement(ref _concurrentReads);
            _instruments.ReadEnded(counted);
        }

        Publish(result);
        return result.Length;
    }

    /// <summary>
    /// Reads a file on the consumer's thread. The consumer must never wait for the budget, since only it frees what is
    /// held: a file whose bytes do not fit yet stays open until a later call, after the consumer took what was read.
    /// </summary>
    /// <returns>Whether the file was published.</returns>
    private bool TryCallerRead(int index)
    {
        string path = _paths[index];
        try
        {
            CheckName(index, path);
            SafeFileHandle handle = ReadableFile.Open(path, out long length);
            _callerFile = new CallerFile(index, handle, length, _readSettings.BudgetCharge(length));
        }
        catch (Exception ex)
        {
            PublishFailure(index, ex);
            return true;
        }

        return TryFinishCallerRead();
    }

    private bool TryFinishCallerRead()
    {
        CallerFile file = _callerFile!;
        if (!Budget.TryAcquire(file.Charge, file.Index))
        {
            return false;
        }

        _callerFile = null;
        ReadAndPublish(file.Index, opened: file);
        return true;
    }

    /// <summary>Counts a reader thread as running; <see cref="DisposeAsync"/> waits for each to call <see cref="ReaderExited"/>.</summary>
    internal void ReaderStarted()
    {
        lock (_sync)
        {
            _activeReaders++;
        }
    }

    internal void ReaderExited()
    {
        TaskCompletionSource? exited = null;
        lock (_sync)
        {
            if (--_activeReaders == 0)
            {
                exited = _readersExited;
                Monitor.PulseAll(_sync);
            }
        }

        exited?.TrySetResult();
    }

    /// <summary>Stops the load because its machinery failed; the consumer sees <paramref name="error"/>.</summary>
    internal void Fail(Exception error)
    {
        lock (_sync)
        {
            _fault ??= error;
        }

        WakeConsumer();
        _stop.Cancel();
    }

    internal void RecordConcurrency(int concurrent) => InterlockedMax.TryRaise(ref _peakConcurrentReads, concurrent);

    private void Start()
    {
        _started = true;
        (_paths, _undecodable) = FilePlanner.Enumerate(_files, _cancellationToken);
        int window = Math.Max(MinDeliveryWindow, DeliveryWindowPerRead * Math.Min(_paths.Length, ParallelismPolicy.MaxAdaptiveDepth));
        _deliverySlots = new SemaphoreSlim(window);
        _stopRegistration = _stop.Token.UnsafeRegister(static state => ((LoadRun)state!).OnStopped(), this);
        if (_inputOrder)
        {
            Budget.SetDue(0);
        }

        if (_paths.Length == 0)
        {
            return;
        }

        // The device is described by the first reader, not here: in a new process that costs more than reading a
        // few files, and the calling thread reads meanwhile.
        int threads = DirectReaders.ThreadsFor(_options, _options.Storage ?? StorageKind.Unknown, _paths.Length);
        if (threads > 0 && _options.Scheduling == IoScheduling.IoUring && OperatingSystem.IsLinux() && StartRing())
        {
            return;
        }

        if (threads > 0 && _paths.Length <= CallerAloneThreshold && _options.MaxDegreeOfParallelism is null)
        {
            _callerReadsAlone = true;
            _logger?.LoadStarting(_paths.Length, _files, null, _options.Storage ?? StorageKind.Unknown, 1, false);
        }
        else if (threads > 0)
        {
            _directReaders = new DirectReaders(this, threads);
            _directReaders.Start();
        }
        else
        {
            StartPipeline(device: null, knownDevices: null);
        }
    }

    /// <summary>Starts the ring's reads; <see langword="false"/> where the kernel offers no ring (the load then reads on threads).</summary>
    private bool StartRing()
    {
        StorageKind kind = _options.Storage ?? StorageKind.Unknown;
        int depth = RingReader.DepthFor(_options, kind, _paths.Length);
        _ring = RingReader.TryCreate(this, depth, out string? refusal);
        if (_ring is null)
        {
            _logger?.IoUringUnavailable(refusal!);
            return false;
        }

        _ring.Pump(wait: false);
        if (_paths.Length > depth)
        {
            // Described on a thread of its own while this one hands over what the kernel reads. A set the ring takes in
            // one go needs no description: the kernel has every request at once and orders them for the device itself.
            ReaderThreadPool.Shared.Run(static run => ((LoadRun)run!).SettleRingStorage(), this);
        }
        else
        {
            _logger?.LoadStarting(_paths.Length, _files, null, kind, depth, false);
        }

        return true;
    }

    /// <summary>
    /// Describes the storage for the ring: a spinning disk leaves the rest of the set to the pipeline's shallow queue in
    /// physical order (with input order, which the pipeline cannot take over, the ring reads as few files at once).
    /// </summary>
    /// <remarks>The load does not wait for the description: a load that ended meanwhile is left as it is.</remarks>
    private void SettleRingStorage()
    {
        try
        {
            StorageDevice device = DescribeDevice(_paths[0]);
            Volatile.Write(ref _device, device);
            lock (_sync)
            {
                if (_disposed)
                {
                    return;
                }

                // Counted from here, so that a load ending now waits for the pipeline this may start.
                _activeReaders++;
            }

            try
            {
                SettleRingStorage(_ring!, device);
            }
            finally
            {
                ReaderExited();
            }
        }
        catch (Exception ex)
        {
            // DescribeDevice handles what a device can throw; this is a bug: stop the load visibly.
            Fail(ex);
        }
    }

    private void SettleRingStorage(RingReader ring, StorageDevice device)
    {
        StorageKind kind = _options.Storage ?? device.Kind;
        bool pipeline = false;
        if (kind == StorageKind.Rotational && _options.MaxDegreeOfParallelism is null)
        {
            if (_inputOrder)
            {
                ring.Limit(ParallelismPolicy.RotationalSmallFileDepth);
            }
            else
            {
                ring.StopClaiming();
                _readersRetired = true;
                pipeline = true;
            }
        }

        _logger?.LoadStarting(_paths.Length, _files, device, kind, ring.Depth, pipeline);
        if (pipeline)
        {
            StartPipeline(device, knownDevices: null);
        }
    }

    /// <summary>
    /// Describes the storage and settles how the load reads: called once, by the first direct reader before it reads.
    /// A spinning disk retires the direct readers for the pipeline's shallow queue in physical order (with input
    /// order, which the pipeline cannot take over, it keeps as many direct readers as that queue is deep); a large set
    /// gets a controller for the direct readers, or the pipeline's lanes where it spans devices.
    /// </summary>
    /// <returns><see langword="false"/> when the load ended meanwhile (the reader then leaves).</returns>
    /// <remarks>The reader does not count as running while it describes the storage: the load does not wait for that.</remarks>
    internal bool SettleStorage()
    {
        ReaderExited();
        StorageDevice device = DescribeDevice(_paths[0]);
        Volatile.Write(ref _device, device);
        lock (_sync)
        {
            // Counted again either way: the reader counts itself out once more when it leaves.
            _activeReaders++;
            if (_disposed)
            {
                return false;
            }
        }

        StorageKind kind = _options.Storage ?? device.Kind;
        DirectReaders readers = _directReaders!;
        readers.Limit(DirectReaders.ThreadsFor(_options, kind, _paths.Length));
        bool large = _options.MaxDegreeOfParallelism is null && _paths.Length > DirectReaders.AdaptiveThreshold;
        DirectoryDevices? devices = large ? new DirectoryDevices() : null;

        // The pipeline's lanes read a spinning disk (shallow queue, physical order) and a large set that spans
        // devices (a lane per device); the direct readers read everything else, the fastest way measured.
        bool pipeline = !_inputOrder && (readers.Threads == 0 || (devices is not null && !OnOneDevice(devices)));
        if (large && !pipeline && _options.Adaptive && readers.Threads > 0)
        {
            long meanLength = MeanLengthSeen(fallback: 1);
            int ceiling = ParallelismPolicy.Ceiling(kind, readers.Threads, meanLength, _paths.Length, _options.MemoryBudget);
            readers.Adapt(new ParallelismController(readers.Threads, ceiling, countFiles: meanLength <= ParallelismPolicy.SmallFileLimit, _time));
        }
        _logger?.LoadStarting(_paths.Length, _files, device, kind, readers.Threads, pipeline);
        _readersRetired = readers.Threads == 0;
        if (pipeline)
        {
            StartPipeline(device, devices);
        }

        return true;
    }

    /// <summary>Whether the set's directories lie on one device (a directory that cannot be examined is left out).</summary>
    private bool OnOneDevice(DirectoryDevices devices)
    {
        ulong first = 0;
        foreach (string path in _paths)
        {
            ulong device = devices.Of(path);
            if (device != 0 && first != 0 && device != first)
            {
                return false;
            }

            first = first == 0 ? device : first;
        }

        return true;
    }

    /// <summary>Starts the pipeline; it describes the storage itself when <paramref name="device"/> is not known yet.</summary>
    private void StartPipeline(StorageDevice? device, DirectoryDevices? knownDevices)
    {
        if (device is null)
        {
            _logger?.LoadStarting(_paths.Length, _files, null, _options.Storage ?? StorageKind.Unknown, 0, true);
        }

        Volatile.Write(ref _pipeline, Pipeline.Start(this, device, knownDevices));
    }

    /// <summary>The device the set's first file lies on (as a prior: its kind, from the OS, can be wrong).</summary>
    internal StorageDevice DescribeDevice(string path)
    {
        if (Environment.GetEnvironmentVariable("FL_NODESCRIBE") == "1" || _options.Storage is not null and not StorageKind.Rotational)
        {
            // The caller said what the storage is: no need to ask the device.
            return StorageDevice.Unknown;
        }

        try
        {
            return StorageProbe.Describe(Path.GetDirectoryName(Path.GetFullPath(path)) ?? path);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            // A directory that cannot be examined: the default policy applies, and reading reports each file's problem.
            return StorageDevice.Unknown;
        }
    }

    /// <summary>Once every file is handed over, readers only have their loop to leave: waits for that without going asynchronous.</summary>
    private void WaitForIdleReadersLocked()
    {
        while (_activeReaders > 0 && _handedOver == _paths.Length)
        {
            Monitor.Wait(_sync);
        }
    }

    /// <summary>Logs the load's end, the first time the consumer finds every file handed over; returns <see langword="false"/>.</summary>
    private bool Finished()
    {
        if (!_finished)
        {
            _finished = true;
            int threads = DirectThreads;
            _logger?.LoadCompleted(
                _fileCount,
                _byteCount,
                (long)_time.GetElapsedTime(_startTimestamp).TotalMilliseconds,
                threads > 0 ? threads : _pipeline?.Summary()?.CurrentParallelism ?? 0,
                _failures?.Count ?? 0);
        }

        return false;
    }

    private void OnStopped()
    {
        Budget.Stop();
        _directReaders?.WakeParked();
        WakeConsumer();
    }

    private void WakeConsumer()
    {
        bool wake;
        lock (_sync)
        {
            wake = _consumerWaiting;
            _consumerWaiting = false;
            if (_consumerBlocked)
            {
                Monitor.PulseAll(_sync);
            }
        }

        if (wake)
        {
            _signal.SetResult(true);
        }
    }

    internal void CheckName(int index, string path)
    {
        if (_undecodable is not null && FilePlanner.CheckName(path, _undecodable.Contains(index)) is { } badName)
        {
            throw badName;
        }
    }

    private LoadedFile Read(int index, string path)
    {
        CheckName(index, path);
        SafeFileHandle handle = ReadableFile.Open(path, out long length);
        long charge;
        try
        {
            charge = _readSettings.BudgetCharge(length);
            Budget.Acquire(charge, index, _stop.Token);
        }
        catch
        {
            handle.Dispose();
            throw;
        }

        return ReadOpened(index, path, handle, length, charge);
    }

    /// <summary>Reads an open file whose <paramref name="charge"/> is taken; closes it and releases the charge on failure.</summary>
    private LoadedFile ReadOpened(int index, string path, SafeFileHandle handle, long length, long charge)
    {
        FileContents contents;
        try
        {
            contents = FileReader.Read(handle, path, length, _readSettings, _stop.Token);
        }
        catch
        {
            Budget.Release(charge);
            throw;
        }

        long actual = _readSettings.BudgetCharge(contents.Length);
        if (actual > charge)
        {
            // The file grew after it was opened; the bytes are already read, so they are charged without waiting.
            Budget.ForceAcquire(actual - charge);
            charge = actual;
        }

        Interlocked.Add(ref _bytesSeen, contents.Length);
        Interlocked.Increment(ref _filesSeen);
        return new LoadedFile(path, index, contents, charge);
    }

    private void Publish(LoadedFile file)
    {
        bool wake;
        lock (_sync)
        {
            if (_inputOrder)
            {
                _outOfOrder!.Add(file.Index, file);
                wake = file.Index == _nextIndex;
            }
            else
            {
                _ready.Enqueue(file);
                wake = true;
            }

            if (wake && _consumerBlocked)
            {
                Monitor.PulseAll(_sync);
            }

            wake &= _consumerWaiting;
            if (wake)
            {
                _consumerWaiting = false;
            }
        }

        if (wake)
        {
            _signal.SetResult(true);
        }
    }

    private bool TryTakeLocked([System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out LoadedFile? file)
    {
        if (_inputOrder)
        {
            if (_outOfOrder!.Remove(_nextIndex, out file))
            {
                _nextIndex++;
                Budget.SetDue(_nextIndex);
                return true;
            }

            return false;
        }

        return _ready.TryDequeue(out file);
    }

    /// <summary>Releases the file's budget and slot and records it; throws its error with <see cref="LoadErrorHandling.Throw"/>.</summary>
    private bool HandOver(LoadedFile file)
    {
        Budget.Release(file.BudgetCharge);
        _deliverySlots!.Release();
        _handedOver++;
        if (file.Error is null)
        {
            _fileCount++;
            _byteCount += file.Length;
        }
        else
        {
            (_failures ??= []).Add(new LoadFailure(file.Path, file.Error));
            _logger?.FileFailed(file.Path, file.Error);
            if (_options.ErrorHandling == LoadErrorHandling.Throw)
            {
                file.Dispose();
                ExceptionDispatchInfo.Throw(file.Error);
            }
        }

        Current = file;
        return true;
    }

    private void ThrowIfStoppedLocked()
    {
        if (_fault is not null)
        {
            ExceptionDispatchInfo.Throw(_fault);
        }

        _cancellationToken.ThrowIfCancellationRequested();
        _enumeratorCancellationToken.ThrowIfCancellationRequested();
        if (_stop.IsCancellationRequested)
        {
            throw new OperationCanceledException(_stop.Token);
        }
    }

    private bool ReleaseSlot()
    {
        _deliverySlots!.Release();
        return false;
    }

    /// <summary>An opened file read and published on a reader thread, which then counts itself out.</summary>
    private sealed record OpenedRead(LoadRun Load, int Index, SafeFileHandle Handle, long Length, long Charge)
    {
        public void Run()
        {
            try
            {
                Load.ReadOpenedAndPublish(Index, Handle, Length, Charge);
            }
            finally
            {
                Load.ReaderExited();
            }
        }
    }

    /// <summary>A file the consumer's thread opened and will read once its bytes fit the budget.</summary>
    private sealed record CallerFile(int Index, SafeFileHandle Handle, long Length, long Charge);
}
