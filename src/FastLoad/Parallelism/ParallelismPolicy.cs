namespace FastLoad.Parallelism;

/// <summary>
/// The static choice of how many files to read at once, from the files' sizes, the cores and the memory budget.
/// An SSD serves small random reads best at a deep queue (here: about 17k IOPS at depth 1, 80k at 32), and
/// cores are not the limit, so the depth does not follow the core count the way the classic advice does.
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

    /// <summary>Chooses the parallelism for <paramref name="fileCount"/> files whose sizes <paramref name="sampleLengths"/> represent.</summary>
    public static int Choose(IReadOnlyCollection<long> sampleLengths, int fileCount, long memoryBudget, int processorCount)
    {
        if (fileCount == 0 || sampleLengths.Count == 0)
        {
            return 1;
        }

        long meanLength = Math.Max(1, sampleLengths.Sum() / sampleLengths.Count);
        int depth = meanLength switch
        {
            <= SmallFileLimit => SmallFileDepth,
            <= MediumFileLimit => MediumFileDepth,
            <= LargeFileLimit => LargeFileDepth,
            _ => HugeFileDepth,
        };

        // Many cores consume files faster; keep the device at least that busy.
        depth = Math.Max(depth, 2 * processorCount);

        // No deeper than the budget can hold files of the mean size, nor than there are files.
        long byBudget = Math.Max(1, memoryBudget / meanLength);
        return (int)Math.Min(Math.Min(depth, byBudget), Math.Min(fileCount, FileLoaderConstants.MaxDegreeOfParallelism));
    }
}
