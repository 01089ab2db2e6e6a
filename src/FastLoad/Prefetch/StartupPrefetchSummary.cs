namespace FastLoad;

/// <summary>What a start found, replayed and recorded (<see cref="StartupPrefetch.Completion"/>), or what a replay did (<see cref="StartupPrefetch.ReplayAsync"/>).</summary>
public sealed class StartupPrefetchSummary
{
    internal StartupPrefetchSummary()
    {
    }

    /// <summary>Gets what became of the last start's manifest.</summary>
    public StartupManifestStatus ManifestStatus { get; internal init; }

    /// <summary>Gets the manifest replayed, or the one found stale or corrupt; <see langword="null"/> when none was found.</summary>
    public string? ManifestPath { get; internal init; }

    /// <summary>Gets why the manifest was not replayed when it was stale or corrupt; otherwise <see langword="null"/>.</summary>
    public string? ManifestProblem { get; internal init; }

    /// <summary>
    /// Gets how much the process had read from the disk when the start began, which decides whether it is replayed
    /// (<see cref="StartupPrefetchOptions.ColdStartThreshold"/>); <see langword="null"/> where the system does not say, and
    /// for <see cref="StartupPrefetch.ReplayAsync"/>.
    /// </summary>
    public long? DiskReadBytesAtBegin { get; internal init; }

    /// <summary>
    /// Gets what stopped the start's prefetch or recording (the type and message of the error, also logged as a
    /// warning): a thread the system would not create, a failure to read or write; <see langword="null"/> when nothing did.
    /// A stale or corrupt manifest is not such a problem: <see cref="ManifestProblem"/> says why it was not replayed.
    /// </summary>
    public string? Problem { get; internal init; }

    /// <summary>Gets the number of the manifest's files that were still as recorded, and were replayed.</summary>
    public int FileCount { get; internal init; }

    /// <summary>Gets the number of the manifest's files that changed (length or last write time) or went away since, and were skipped.</summary>
    public int ChangedFileCount { get; internal init; }

    /// <summary>
    /// Gets the number of the manifest's files that are there but could not be opened (no permission, an I/O error, or
    /// no descriptor to spare: the replay never takes the application's last ones), and were skipped.
    /// </summary>
    public int UnopenedFileCount { get; internal init; }

    /// <summary>Gets the bytes the replay asked of the disk.</summary>
    public long RequestedBytes { get; internal init; }

    /// <summary>Gets the bytes of the manifest that were already in the page cache, and were not asked for (Linux and macOS).</summary>
    public long CachedBytes { get; internal init; }

    /// <summary>Gets a value indicating whether ranges were left out because <see cref="StartupPrefetchOptions.ReplayBudget"/> was spent.</summary>
    public bool BudgetReached { get; internal init; }

    /// <summary>Gets a value indicating whether ranges were left out because the start ended (or the replay was canceled) first.</summary>
    public bool StoppedByEnd { get; internal init; }

    /// <summary>Gets how long the replay took, until the last range it asked for was read or it stopped.</summary>
    public TimeSpan ReplayDuration { get; internal init; }

    /// <summary>
    /// Gets where this start's manifest is now; <see langword="null"/> when the start was not recorded
    /// (<see cref="StartupPrefetchOptions.Record"/> is <see langword="false"/>, the start was disposed before it ended,
    /// or no place would take the file).
    /// </summary>
    public string? RecordedPath { get; internal init; }

    /// <summary>Gets a value indicating whether the manifest was written; <see langword="false"/> when the file already held the same bytes.</summary>
    public bool ManifestWritten { get; internal init; }

    /// <summary>Gets the number of files this start's manifest lists.</summary>
    public int RecordedFileCount { get; internal init; }

    /// <summary>Gets the bytes of the ranges this start's manifest lists.</summary>
    public long RecordedByteCount { get; internal init; }
}
