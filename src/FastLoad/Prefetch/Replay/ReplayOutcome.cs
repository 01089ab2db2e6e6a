namespace FastLoad.Prefetch;

/// <summary>What one replay of a manifest did.</summary>
/// <param name="FileCount">Files of the manifest that still matched their record and were looked at.</param>
/// <param name="ChangedFileCount">Files changed or gone since the manifest was recorded, skipped.</param>
/// <param name="UnopenedFileCount">Files of the manifest that are there but could not be opened (no permission, no descriptor to spare), skipped.</param>
/// <param name="RequestedBytes">Bytes asked of the disk.</param>
/// <param name="CachedBytes">Bytes of the manifest's ranges already in the page cache, not asked for.</param>
/// <param name="BudgetReached">Ranges were left out because the budget was spent.</param>
/// <param name="Stopped">Ranges were left out because the start ended (or the replay was canceled) first.</param>
/// <param name="Elapsed">From the first file opened until the last range asked for was read (or the stop).</param>
internal readonly record struct ReplayOutcome(
    int FileCount, int ChangedFileCount, int UnopenedFileCount, long RequestedBytes, long CachedBytes, bool BudgetReached, bool Stopped, TimeSpan Elapsed);
