namespace FastLoad;

/// <summary>What a load did: counts, failures, time and the parallelism it ran at.</summary>
public sealed class LoadSummary
{
    private Func<StorageDevice?>? _storage;
    private StorageDevice? _storageValue;

    internal LoadSummary(
        int fileCount,
        long byteCount,
        IReadOnlyList<LoadFailure> failures,
        TimeSpan elapsed,
        int degreeOfParallelism,
        int initialDegreeOfParallelism,
        IReadOnlyList<int> parallelismHistory,
        Func<StorageDevice?> storage,
        long peakBytesInFlight,
        int peakConcurrentReads)
    {
        FileCount = fileCount;
        ByteCount = byteCount;
        Failures = failures;
        Elapsed = elapsed;
        DegreeOfParallelism = degreeOfParallelism;
        InitialDegreeOfParallelism = initialDegreeOfParallelism;
        ParallelismHistory = parallelismHistory;
        _storage = storage;
        PeakBytesInFlight = peakBytesInFlight;
        PeakConcurrentReads = peakConcurrentReads;
    }

    /// <summary>Gets the number of files that loaded.</summary>
    public int FileCount { get; }

    /// <summary>Gets the number of bytes loaded, over all files that loaded.</summary>
    public long ByteCount { get; }

    /// <summary>Gets the files that failed to load, in the order the failures were seen.</summary>
    public IReadOnlyList<LoadFailure> Failures { get; }

    /// <summary>Gets the time from the start of planning to the delivery of the last file.</summary>
    public TimeSpan Elapsed { get; }

    /// <summary>Gets the number of files read at once when the load ended: where the controller settled (or the pinned value).</summary>
    /// <remarks>For a load over several devices, this and the other parallelism figures are those of the device with the most files.</remarks>
    public int DegreeOfParallelism { get; }

    /// <summary>Gets the number of files read at once when the load started, from the storage kind and the file sizes.</summary>
    public int InitialDegreeOfParallelism { get; }

    /// <summary>Gets every parallelism the controller set, in order, starting with the initial one.</summary>
    public IReadOnlyList<int> ParallelismHistory { get; }

    /// <summary>Gets the storage device the files were read from, or <see langword="null"/> for an empty load.</summary>
    /// <remarks>Described on first use, if the load had not described it by its end.</remarks>
    public StorageDevice? Storage
    {
        get
        {
            if (_storage is { } describe)
            {
                _storageValue = describe();
                _storage = null;
            }

            return _storageValue;
        }
    }

    /// <summary>Gets the largest number of bytes the loader held at once against <see cref="FileLoaderOptions.MemoryBudget"/>.</summary>
    public long PeakBytesInFlight { get; }

    /// <summary>Gets the largest number of reads that were running at the same moment.</summary>
    public int PeakConcurrentReads { get; }
}
