using FastLoad.FileSystem;
using Microsoft.Extensions.Logging;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Engine;

/// <summary>
/// Which readers read a load, started when the load starts and settled once its storage is known:
/// <list type="bullet">
/// <item>on Linux, io_uring rings: the consumer's thread drives the first, and a large set gets one more per core, each
/// driven by a reader thread of its own (a ring copies cached data on the thread that submits, so a warm load needs a
/// ring per core, and the kernel keeps every ring's reads in flight at once for a cold one);</item>
/// <item>elsewhere, or where the kernel refuses a ring: reader threads, or the consumer's thread alone for a few files;</item>
/// <item>the pipeline's lanes for a spinning disk (physical order) and a large set that spans devices.</item>
/// </list>
/// The device is described off the consumer's thread, and not at all for a set the first ring takes in one go.
/// </summary>
internal sealed class LoadReaders(LoadContext context, DeliveryChannel.DeliveryWriter delivery)
{
    private RingReader[]? _rings;
    private DirectReaders? _direct;
    private Pipeline? _pipeline;
    private StorageDevice? _device;
    private bool _callerAlone;
    private int _ringStorageSettling;
    private volatile bool _retired;

    /// <summary>
    /// Whether the rings, the direct readers and the consumer's own reads should stop taking files: the pipeline reads
    /// now (it takes every file left), or the load stops.
    /// </summary>
    public bool Retired => _retired || Volatile.Read(ref _pipeline)?.IsReading == true || context.StopToken.IsCancellationRequested;

    /// <summary>The device the set's first file lies on, once a reader described it.</summary>
    public StorageDevice? Device => Volatile.Read(ref _device);

    /// <summary>Completes when the pipeline, if one started, has published every file it claimed.</summary>
    public Task PipelineCompletion => Volatile.Read(ref _pipeline)?.Completion ?? Task.CompletedTask;

    internal bool HasDirectReaders => _direct is not null;

    /// <summary>Counts a file the caller's thread read, as the reader threads count theirs.</summary>
    internal void FileRead(long bytes)
    {
        try
        {
            _direct?.FileRead(bytes);
        }
        catch (Exception ex)
        {
            // A reader thread the new limit asked for could not be started: stop the load visibly, as a thread would.
            delivery.Fail(ex);
        }
    }

    /// <summary>Starts reading; returns the reader the consumer's thread drives, if any.</summary>
    public ConsumerThreadReader? Start()
    {
        FileLoaderOptions options = context.Options;
        int files = context.Files.Count;
        StorageKind kind = options.Storage ?? StorageKind.Unknown;
        ReadPlan plan = ReadPlan.For(options, kind, files, Environment.ProcessorCount);
        if (plan.UsesRings && OperatingSystem.IsLinux())
        {
            if (SpinningDiskBeforeReading(plan) is { } spinning)
            {
                delivery.OpenWindow(plan.ThreadDeliveryWindow);
                context.Logger?.LoadStarting(files, context.Files.Set, spinning, StorageKind.Rotational, 0, true);
                StartPipeline(spinning, knownDevices: null);
                return null;
            }

            if (StartRings(plan, kind) is { } ring)
            {
                return ring;
            }
        }

        delivery.OpenWindow(plan.ThreadDeliveryWindow);
        if (plan.CallerAlone)
        {
            // The device is described by a reader, not here: in a new process that costs more than reading a few files.
            _callerAlone = true;
            context.Logger?.LoadStarting(files, context.Files.Set, null, kind, 1, false);
            return new CallerReads(context, delivery, this);
        }

        if (plan.Threads > 0)
        {
            _direct = new DirectReaders(context, delivery, this, plan.Threads, plan.ThreadsWhileCached);
            _direct.Start();
            return new CallerReads(context, delivery, this);
        }

        StartPipeline(device: null, knownDevices: null);
        return null;
    }

    /// <summary>The load's parallelism for its summary: now, at the start, and each settled value.</summary>
    public (int Current, int Initial, IReadOnlyList<int> History) Parallelism()
    {
        if (_pipeline?.Summary() is { } lane)
        {
            return (lane.CurrentParallelism, lane.InitialParallelism, lane.History);
        }

        if (_direct is not null)
        {
            return (_direct.SettledThreads, _direct.InitialThreads, _direct.History);
        }

        int reads = _rings is not null ? RingDepth() : _callerAlone ? 1 : 0;
        return (reads, reads, reads > 0 ? [reads] : []);
    }

    /// <summary>The load stopped: readers waiting above their limit look again.</summary>
    public void Stopped() => _direct?.WakeParked();

    /// <summary>The load released its resources.</summary>
    public void Released()
    {
        // The load is over for its parallelism too, even while its first reader thread still describes the storage.
        _direct?.StopCountingParallelism();
        if (_direct is null && _pipeline is null)
        {
            // Reader threads start the instruments' creation on their way out; a load without any starts it here.
            context.Instruments.RequestCreation();
        }
    }

    /// <summary>The device the set's first file lies on (as a prior: its kind, from the OS, can be wrong).</summary>
    internal StorageDevice DescribeDevice(string path)
    {
        context.Hooks.OnDescribeDevice?.Invoke();
        if (context.Hooks.DeviceDescription is { } description)
        {
            return description();
        }

        if (context.Options.Storage is not null and not StorageKind.Rotational)
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

    /// <summary>
    /// Settles how the load reads on the storage the first direct reader described, before it reads.
    /// A spinning disk retires the direct readers for the pipeline's lane in physical order (with input order, which
    /// the pipeline cannot take over, it keeps a few direct readers); a large set gets a controller for the direct
    /// readers, or the pipeline's lanes where it spans devices.
    /// </summary>
    internal void SettleStorage(StorageDevice device)
    {
        Volatile.Write(ref _device, device);
        FileLoaderOptions options = context.Options;
        StorageKind kind = options.Storage ?? device.Kind;
        int files = context.Files.Count;
        DirectReaders readers = _direct!;
        readers.Limit(ReadPlan.For(options, kind, files, Environment.ProcessorCount).Threads);
        bool large = options.MaxDegreeOfParallelism is null && files > DirectReaders.AdaptiveThreshold;
        DirectoryDevices? devices = large ? new DirectoryDevices() : null;

        // The pipeline's lanes read a spinning disk (physical order) and a large set that spans
        // devices (a lane per device); the direct readers read everything else, the fastest way measured.
        bool pipeline = options.Ordering == LoadOrdering.Completion && (readers.Threads == 0 || (devices is not null && !OnOneDevice(devices)));
        if (large && !pipeline && options.Adaptive && readers.Threads > 0)
        {
            long meanLength = delivery.MeanLengthSeen(fallback: 1);
            int ceiling = ParallelismPolicy.Ceiling(kind, readers.Threads, meanLength, files, options.MemoryBudget);
            readers.Adapt(new ParallelismController(readers.Threads, ceiling, countFiles: meanLength <= ParallelismPolicy.SmallFileLimit, context.Time));
        }

        context.Logger?.LoadStarting(files, context.Files.Set, device, kind, readers.Threads, pipeline);
        _retired = readers.Threads == 0;
        if (pipeline)
        {
            StartPipeline(device, devices);
        }
    }

    /// <summary>
    /// How many reader threads the budget keeps busy, from the files read so far: a thread whose file does not fit only
    /// waits, holding a descriptor. Unlimited until a file was read, or with a pinned parallelism (a promise kept).
    /// </summary>
    internal int ThreadsTheBudgetFeeds()
    {
        long meanLength = delivery.MeanLengthSeen(fallback: 0);
        if (meanLength == 0 || context.Options.MaxDegreeOfParallelism is not null)
        {
            return int.MaxValue;
        }

        // Half the budget for reads, half for files read and not yet taken by the consumer.
        long perFile = context.ReadSettings.BudgetCharge(meanLength);
        return (int)Math.Clamp(context.Options.MemoryBudget / 2 / perFile, 1, int.MaxValue);
    }

    /// <summary>
    /// The device, where it is a spinning disk that the rings would hand to the pipeline and the set's first file is
    /// not in the page cache. The rings read their first files in the set's order before any of them waits, and on a
    /// spinning disk each of those can cost a seek; described first, a cold set goes to the pipeline's physical order
    /// from its first read. A cached first file (a warm load, which never asks for the description) costs an open and
    /// a question to the page cache.
    /// </summary>
    private StorageDevice? SpinningDiskBeforeReading(ReadPlan plan)
    {
        FileLoaderOptions options = context.Options;
        bool rotationalTakesOver = options.Storage is null && options.Ordering == LoadOrdering.Completion && context.Files.Count > plan.RingShare(0);
        if (!rotationalTakesOver || FirstFileIsCached() || !MayReadAsSpinningDisk(context.Files.PathAt(0)))
        {
            return null;
        }

        StorageDevice device = DescribeDevice(context.Files.PathAt(0));
        if (device.Kind != StorageKind.Rotational)
        {
            return null;
        }

        Volatile.Write(ref _device, device);
        return device;
    }

    /// <summary>
    /// Whether the device that holds <paramref name="path"/> could be described as a spinning disk: not where sysfs says
    /// it cannot (<see cref="StorageProbe.MaySpin"/>); a description costs a new process a few milliseconds of
    /// first-time code before the first read. A test's description replaces that look too.
    /// </summary>
    private bool DeviceMaySpin(string path) =>
        context.Hooks.DeviceDescription is not null || StorageProbe.MaySpin(Path.GetDirectoryName(path) ?? path);

    private bool FirstFileIsCached()
    {
        // A name not in the kernel's lookup cache (truly cold: after a reboot) answers without reading the disk.
        using SafeFileHandle? handle = ReadableFile.TryOpenIfNamesCached(context.Files.PathAt(0), context.Files.FolderOf(0), out bool namesCached);
        if (!namesCached)
        {
            return false;
        }

        // A file that cannot be opened: its read reports why, and the rings start as usual.
        if (handle is null)
        {
            return true;
        }

        // cachestat answers without reading. A read that must not wait (older kernels) still starts the file's read from
        // the device: one out of physical order.
        RangeCaching firstPage = PageCacheRanges.CachingLinux(handle, 0, 1, fileLength: 1);
        if (firstPage != RangeCaching.Unknown)
        {
            return firstPage == RangeCaching.All;
        }

        Span<byte> first = stackalloc byte[1];
        return WholeFileReader.TryReadCached(handle, first, out _);
    }

    /// <summary>
    /// Starts the rings, the consumer's first and, for a large set, one per other core on reader threads; returns the
    /// consumer's, or <see langword="null"/> where the kernel offers no ring (the load then reads on threads).
    /// </summary>
    private RingReader? StartRings(ReadPlan plan, StorageKind kind)
    {
        int files = context.Files.Count;
        int count = plan.Rings;
        RingReader? first = RingReader.TryCreate(context, delivery, plan.RingShare(0), plan.RingCachedDepth, out string? refusal);
        if (first is null)
        {
            context.Logger?.IoUringUnavailable(refusal!);
            return null;
        }

        var rings = new RingReader[count];
        rings[0] = first;
        int created = 1;
        while (created < count)
        {
            // A ring the kernel refuses now (too many in the process) leaves its share to the others.
            if (RingReader.TryCreate(context, delivery, plan.RingShare(created), plan.RingCachedDepth, out _) is not { } helper)
            {
                Array.Resize(ref rings, created);
                break;
            }

            rings[created++] = helper;
        }

        // Every ring is known before any starts: the one that settles the storage stops the others.
        Volatile.Write(ref _rings, rings);

        // Until a read waits for the device, the files are cached and a narrow window lets the next ones reuse the
        // blocks the consumer hands back.
        delivery.OpenWindow(plan.RingDeliveryWindow, plan.RingCachedDeliveryWindow(rings.Length));
        context.Logger?.LoadStarting(files, context.Files.Set, null, kind, plan.RingDepth, false);

        // A set the first ring takes in one go needs no description: the kernel has every request at once and orders
        // them for the device itself. A larger one is described by the first ring that waits for the device (one on a
        // spinning disk gives the rest of the set to the pipeline); a helper does it on its own thread.
        Action? settleStorage = files > first.Depth ? SettleRingStorage : null;
        if (settleStorage is not null)
        {
            first.SettleStorageAtFirstWait(onThisThread: false, settleStorage);
        }

        for (int ring = 1; ring < rings.Length; ring++)
        {
            if (settleStorage is not null)
            {
                rings[ring].SettleStorageAtFirstWait(onThisThread: true, settleStorage);
            }

            if (!StartHelper(rings[ring]))
            {
                // No thread could be started: the rings not started are closed; the started ones read their share.
                for (int unstarted = ring + 1; unstarted < rings.Length; unstarted++)
                {
                    rings[unstarted].Dispose();
                }

                Array.Resize(ref rings, ring);
                Volatile.Write(ref _rings, rings);
                break;
            }
        }

        first.Drive(wait: false);
        return first;
    }

    /// <summary>Drives <paramref name="ring"/> on a reader thread until no file is left for it.</summary>
    private bool StartHelper(RingReader ring)
    {
        if (!context.Lifetime.ReaderStarted())
        {
            ring.Dispose();
            return false;
        }

        try
        {
            ReaderThreadPool.Shared.Run(static ring => ((RingReader)ring!).Run(), ring);
            return true;
        }
        catch (Exception)
        {
            // No thread could be started: the other rings read its share.
            ring.Dispose();
            context.Lifetime.ReaderExited();
            return false;
        }
    }

    private int RingDepth()
    {
        int depth = 0;
        foreach (RingReader ring in _rings!)
        {
            depth += ring.Depth;
        }

        return depth;
    }

    /// <summary>
    /// Describes the storage for the rings: a spinning disk leaves the rest of the set to the pipeline's lane in
    /// physical order (with input order, which the pipeline cannot take over, the first ring reads a few files at once
    /// and the others stop). The load does not wait for the description: a load that ended meanwhile is left as it is.
    /// The rings read at full depth meanwhile: where the set's first file was not cached, a spinning disk was found before
    /// the first read (<see cref="SpinningDiskBeforeReading"/>).
    /// </summary>
    private void SettleRingStorage()
    {
        if (Interlocked.Exchange(ref _ringStorageSettling, 1) != 0)
        {
            // Another ring waited first.
            return;
        }

        try
        {
            string first = context.Files.PathAt(0);
            if (!MayReadAsSpinningDisk(first))
            {
                // Nothing to settle; the load's summary describes the device if asked.
                return;
            }

            StorageDevice device = DescribeDevice(first);
            Volatile.Write(ref _device, device);
            if (!context.Lifetime.ReaderStarted())
            {
                return;
            }

            // Counted while it settles, so that a load ending now waits for the pipeline this may start.
            try
            {
                SettleRingStorageOn(device);
            }
            finally
            {
                context.Lifetime.ReaderExited();
            }
        }
        catch (Exception ex)
        {
            // DescribeDevice handles what a device can throw; this is a bug: stop the load visibly.
            delivery.Fail(ex);
        }
    }

    /// <summary>
    /// Whether the rings could give the set to the pipeline (<see cref="SettleRingStorageOn"/>): not with the parallelism
    /// pinned, nor where the options or sysfs say the device does not spin (an SSD, an NVMe drive, a virtio disk), which
    /// spares the helper ring the description's first-time code in a new process.
    /// </summary>
    private bool MayReadAsSpinningDisk(string path)
    {
        FileLoaderOptions options = context.Options;
        return options.MaxDegreeOfParallelism is null
            && (options.Storage is { } storage ? storage == StorageKind.Rotational : DeviceMaySpin(path));
    }

    private void SettleRingStorageOn(StorageDevice device)
    {
        FileLoaderOptions options = context.Options;

        // The parallelism is not pinned here, and a storage the options name is a spinning disk (MayReadAsSpinningDisk).
        if ((options.Storage ?? device.Kind) != StorageKind.Rotational)
        {
            return;
        }

        RingReader[] rings = Volatile.Read(ref _rings)!;
        for (int ring = 1; ring < rings.Length; ring++)
        {
            rings[ring].StopClaiming();
        }

        if (options.Ordering == LoadOrdering.Input)
        {
            rings[0].Limit(ParallelismPolicy.RotationalShallowDepth);
            return;
        }

        rings[0].StopClaiming();
        _retired = true;
        StartPipeline(device, knownDevices: null);
    }

    /// <summary>Whether the set's directories lie on one device (a directory that cannot be examined is left out).</summary>
    private bool OnOneDevice(DirectoryDevices devices)
    {
        ulong first = 0;
        for (int index = 0; index < context.Files.Count; index++)
        {
            ulong device = devices.Of(context.Files.PathAt(index));
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
            context.Logger?.LoadStarting(context.Files.Count, context.Files.Set, null, context.Options.Storage ?? StorageKind.Unknown, 0, true);
        }

        Volatile.Write(ref _pipeline, Pipeline.Start(context, delivery, this, device, knownDevices));
    }
}
