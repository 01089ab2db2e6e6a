namespace FastLoad.Engine;

/// <summary>
/// How a load reads, chosen by one pure function (<see cref="For"/>) from its options, the kind of its storage and the
/// size of its set: the io_uring rings and how many reads they run at once, the reader threads where no ring reads,
/// whether the consumer's thread reads alone, and the delivery window. A load starts on the plan for the storage its
/// options name, and its reader threads settle on the plan for its device once that is described; what the budget and
/// the adaptive controller make of it afterwards is measured, not planned.
/// </summary>
/// <param name="Threads">Reader threads where no ring reads; 0 where only the pipeline should read.</param>
/// <param name="UsesRings">Whether io_uring rings read the load, where the kernel offers them (Linux).</param>
/// <param name="Rings">How many rings read the load: one per 128 files, up to one per core, each reading at least 8 at once.</param>
/// <param name="RingDepth">How many files the rings read at once, all together, once a read waits for the device.</param>
/// <param name="RingCachedDepth">How many files each ring reads at once until then (<see cref="CachedDepth"/> or <see cref="CachedDepthAlone"/>).</param>
/// <param name="CallerAlone">Whether the consumer's thread reads the set alone where no ring reads: a few files, no thread started.</param>
/// <param name="ThreadDeliveryWindow">The delivery window where no ring reads.</param>
/// <param name="ThreadsWhileCached">
/// Reader threads until a read waits for the device, where the kernel can tell (Linux): one per core, as cached files
/// only take turns on the cores; <see cref="Threads"/> where the number is pinned, or elsewhere.
/// </param>
/// <param name="RingDeliveryWindow">The delivery window of the rings, once a read waits for the device.</param>
internal sealed record ReadPlan(
    int Threads, bool UsesRings, int Rings, int RingDepth, int RingCachedDepth, bool CallerAlone, int ThreadDeliveryWindow, int RingDeliveryWindow, int ThreadsWhileCached)
{
    /// <summary>Files in flight at most over a load's rings: deep enough for a native reader to reach an SSD's limit (docs/startup.md).</summary>
    internal const int MaxRingDepth = 128;

    /// <summary>
    /// Files a ring keeps open at once until it first waits for the device. Cached files are copied during the
    /// submission whatever the depth, and a few at a time let the consumer hand back blocks that the next files are
    /// read into: fresh memory costs a page fault a page, more than copying a small file.
    /// </summary>
    internal const int CachedDepth = 16;

    /// <summary>
    /// <see cref="CachedDepth"/> for the consumer's ring when it reads a load alone: it reads between the files it hands
    /// over, and smaller batches let more files reuse blocks. Helper rings need the larger batches to stay ahead of the
    /// consumer without being woken every few files.
    /// </summary>
    internal const int CachedDepthAlone = 8;

    /// <summary>
    /// The plan for a load of <paramref name="fileCount"/> files on storage of <paramref name="kind"/>, on a machine of
    /// <paramref name="processors"/> cores.
    /// </summary>
    public static ReadPlan For(FileLoaderOptions options, StorageKind kind, int fileCount, int processors)
    {
        // A set gets one ring per this many files, up to one per core: below it, a thread costs more than it reads. A ring
        // reads at least this many files at once: shallower, a submission carries too few requests to pay. Sets up to
        // this size are read by the consumer's thread alone where no ring reads.
        const int MinFilesPerRing = 128, MinDepthPerRing = 8, CallerAloneThreshold = 16;

        // Files claimed and not handed over at most, per read at once and at least: enough to keep the device busy while
        // the consumer is slow, few enough that a warm load reuses the buffers the consumer returns.
        const int DeliveryWindowPerRead = 2, MinDeliveryWindow = 64;

        int threads = ThreadsFor(options, kind, fileCount, processors);
        bool rings = threads > 0 && options.Scheduling == IoScheduling.IoUring;
        int ringDepth = Math.Max(1, Math.Min(fileCount, options.MaxDegreeOfParallelism ?? (kind == StorageKind.Rotational ? ParallelismPolicy.RotationalShallowDepth : MaxRingDepth)));

        // A spinning disk's few reads at once, and input order's window, are kept simplest on one ring.
        int ringCount = kind == StorageKind.Rotational || options.Ordering == LoadOrdering.Input
            ? 1
            : Math.Clamp(Math.Min(processors, fileCount / MinFilesPerRing), 1, Math.Max(1, ringDepth / MinDepthPerRing));
        bool callerAlone = threads > 0 && fileCount <= CallerAloneThreshold && options.MaxDegreeOfParallelism is null;
        int threadWindow = Math.Max(MinDeliveryWindow, DeliveryWindowPerRead * Math.Min(fileCount, ParallelismPolicy.MaxAdaptiveDepth));
        int ringWindow = Math.Max(MinDeliveryWindow, DeliveryWindowPerRead * ringDepth);
        int whileCached = OperatingSystem.IsLinux() && options.MaxDegreeOfParallelism is null ? Math.Min(threads, processors) : threads;
        return new ReadPlan(threads, rings, ringCount, ringDepth, ringCount == 1 ? CachedDepthAlone : CachedDepth, callerAlone, threadWindow, ringWindow, whileCached);
    }

    /// <summary>The depth of ring <paramref name="ring"/>: its share of <see cref="RingDepth"/> among the <see cref="Rings"/>.</summary>
    public int RingShare(int ring) => (RingDepth / Rings) + (ring < RingDepth % Rings ? 1 : 0);

    /// <summary>
    /// The part of <see cref="RingDeliveryWindow"/> open until a read waits for the device, for
    /// <paramref name="ringsStarted"/> rings. The consumer's own ring, alone, reads a batch and hands it over before it
    /// reads the next: the window is the batch. Helper rings on other cores need room to stay ahead of the consumer:
    /// with two files per read they would wait to be woken every few files.
    /// </summary>
    public int RingCachedDeliveryWindow(int ringsStarted)
    {
        // Files per read at once, as in the whole window, for helper rings.
        const int HelperDeliveryWindowPerRead = 4;
        return ringsStarted == 1 ? Math.Min(RingDepth, RingCachedDepth) : HelperDeliveryWindowPerRead * RingCachedDepth * ringsStarted;
    }

    private static int ThreadsFor(FileLoaderOptions options, StorageKind kind, int fileCount, int processors)
    {
        // One thread for every few files: a set of ten is read by three threads and the caller's, not by a hundred.
        // Starting a thread costs about as much as reading a small file; more than this wait on the device, not on reads.
        const int FilesPerThread = 4, MaxThreads = 64;

        // The thread pool option asks for the pool's threads; physical order is the pipeline's.
        if (options.Scheduling == IoScheduling.ThreadPool || options.PhysicalOrder == PhysicalOrder.On)
        {
            return 0;
        }

        int limit = options.MaxDegreeOfParallelism ?? kind switch
        {
            // A spinning disk wants few reads at once (with input order the direct readers are all there is).
            StorageKind.Rotational => options.Ordering == LoadOrdering.Input ? ParallelismPolicy.RotationalShallowDepth : 0,

            StorageKind.Memory => ParallelismPolicy.MemoryDepth(processors),
            _ => MaxThreads,
        };
        int byFiles = options.MaxDegreeOfParallelism is null ? (fileCount + FilesPerThread - 1) / FilesPerThread : fileCount;
        return Math.Min(limit, Math.Max(1, byFiles));
    }
}
