namespace FastLoad;

/// <summary>The defaults and limits of <see cref="FileLoaderOptions"/>.</summary>
internal static class FileLoaderConstants
{
    public const int MaxDegreeOfParallelism = 1024;

    public const long MinMemoryBudget = 64 * 1024;

    public const long MinDefaultMemoryBudget = 32L * 1024 * 1024;

    public const long MaxDefaultMemoryBudget = 512L * 1024 * 1024;

    /// <summary>The share of the memory available to the process that the default budget takes.</summary>
    public const int DefaultMemoryBudgetDivisor = 16;

    public const int MaxConsumerParallelism = 256;

    /// <summary>
    /// 1/16 of the memory available to the process (container limits included), between 32 MiB and 512 MiB: enough
    /// to keep a deep queue of files in flight, small next to what an application starting up needs.
    /// </summary>
    public static long DefaultMemoryBudget { get; } = Math.Clamp(
        GC.GetGCMemoryInfo().TotalAvailableMemoryBytes / DefaultMemoryBudgetDivisor,
        MinDefaultMemoryBudget,
        MaxDefaultMemoryBudget);
}
