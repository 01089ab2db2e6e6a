namespace FastLoad.Engine;

/// <summary>
/// The initial choice of how many files to read at once (the controller corrects it while the load runs), from the
/// storage kind, the files' sizes, the cores and the memory budget. An SSD serves small reads several times faster at
/// a deep queue than one at a time (docs/measurements/benchmarks.md), and cores are not the limit, so the depth does not follow the
/// core count the way the classic advice (cores x 2.5-5.5) does. A spinning disk reads its small files in physical
/// order with a deep window (docs/how-it-works.md): the order spares a drive without command queuing its seeks, and the
/// window lets a drive that queues pick the next request by rotation.
/// </summary>
internal static class ParallelismPolicy
{
    internal const long SmallFileLimit = 256 * 1024;
    internal const long MediumFileLimit = 1024 * 1024;
    internal const long LargeFileLimit = 8 * 1024 * 1024;

    internal const int SmallFileDepth = 128;
    internal const int MediumFileDepth = 32;
    internal const int LargeFileDepth = 16;
    internal const int HugeFileDepth = 8;

    /// <summary>Small files in physical order on a spinning disk: twice the 32 commands a queuing drive reorders.</summary>
    internal const int RotationalSmallFileDepth = 64;

    /// <summary>Files of a few megabytes on a spinning disk, and its files read in the order of the set.</summary>
    internal const int RotationalShallowDepth = 4;

    internal const int RotationalLargeFileDepth = 2;

    /// <summary>The controller never goes beyond this many reads at once (nor beyond the files or the budget).</summary>
    internal const int MaxAdaptiveDepth = 256;

    /// <summary>The mean of the sampled lengths, at least 1.</summary>
    public static long MeanLength(IReadOnlyCollection<long> sampleLengths) =>
        sampleLengths.Count == 0 ? 1 : Math.Max(1, sampleLengths.Sum() / sampleLengths.Count);

    /// <summary>Chooses the initial parallelism for <paramref name="fileCount"/> files of mean length <paramref name="meanLength"/>.</summary>
    public static int Choose(StorageKind kind, long meanLength, int fileCount, long memoryBudget, int processorCount)
    {
        int depth = kind switch
        {
            StorageKind.Rotational => meanLength switch
            {
                <= MediumFileLimit => RotationalSmallFileDepth,
                <= LargeFileLimit => RotationalShallowDepth,
                _ => RotationalLargeFileDepth,
            },

            StorageKind.Memory => MemoryDepth(processorCount),
            _ => Math.Max(2 * processorCount, meanLength switch
            {
                <= SmallFileLimit => SmallFileDepth,
                <= MediumFileLimit => MediumFileDepth,
                <= LargeFileLimit => LargeFileDepth,
                _ => HugeFileDepth,
            }),
        };

        return Bound(depth, meanLength, fileCount, memoryBudget);
    }

    /// <summary>Reads at once from memory (tmpfs, a RAM disk): no queue to fill, the copies are bound by the cores.</summary>
    public static int MemoryDepth(int processorCount) => Math.Max(2, 2 * processorCount);

    /// <summary>Whether a controller corrects the prior from measured throughput on this kind of storage.</summary>
    /// <remarks>
    /// Not on a spinning disk: seeks, not throughput, set its pace, so a window that measures faster at another depth
    /// is noise, and a trial that shrinks the window takes from the drive the choice it reorders by.
    /// </remarks>
    public static bool Adapts(StorageKind kind) => kind != StorageKind.Rotational;

    /// <summary>The highest parallelism the controller may reach: the prior itself where the storage does not adapt.</summary>
    public static int Ceiling(StorageKind kind, int initial, long meanLength, int fileCount, long memoryBudget) =>
        Adapts(kind) ? Math.Max(initial, Bound(MaxAdaptiveDepth, meanLength, fileCount, memoryBudget)) : initial;

    // No deeper than the budget can hold files of the mean size, nor than there are files.
    private static int Bound(int depth, long meanLength, int fileCount, long memoryBudget)
    {
        long byBudget = Math.Max(1, memoryBudget / Math.Max(1, meanLength));
        return (int)Math.Clamp(Math.Min(depth, byBudget), 1, Math.Clamp(fileCount, 1, FileLoaderConstants.MaxDegreeOfParallelism));
    }
}
