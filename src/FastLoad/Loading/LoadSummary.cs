namespace FastLoad;

/// <summary>What a load did: counts, failures, time and the parallelism it ran at.</summary>
public sealed class LoadSummary
{
    internal LoadSummary(
        int fileCount,
        long byteCount,
        IReadOnlyList<LoadFailure> failures,
        TimeSpan elapsed,
        int degreeOfParallelism,
        long peakBytesInFlight,
        int peakConcurrentReads)
    {
        FileCount = fileCount;
        ByteCount = byteCount;
        Failures = failures;
        Elapsed = elapsed;
        DegreeOfParallelism = degreeOfParallelism;
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

    /// <summary>Gets the number of files read at once (the queue depth the device saw).</summary>
    public int DegreeOfParallelism { get; }

    /// <summary>Gets the largest number of bytes the loader held at once against <see cref="FileLoaderOptions.MemoryBudget"/>.</summary>
    public long PeakBytesInFlight { get; }

    /// <summary>Gets the largest number of reads that were running at the same moment.</summary>
    public int PeakConcurrentReads { get; }
}
