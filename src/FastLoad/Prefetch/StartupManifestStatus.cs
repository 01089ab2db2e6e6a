namespace FastLoad;

/// <summary>What a start found of the manifest of the start before it.</summary>
public enum StartupManifestStatus
{
    /// <summary>No manifest: the first recorded start, or one after the manifest was removed.</summary>
    NotFound,

    /// <summary>A manifest of this build was found and replayed.</summary>
    Replayed,

    /// <summary>The manifest was recorded by another build of the application: ignored, and rewritten at the end of start-up.</summary>
    Stale,

    /// <summary>The manifest cannot be read or is not valid: ignored, and rewritten at the end of start-up.</summary>
    Corrupt,

    /// <summary>
    /// Not replayed by FastLoad: <see cref="StartupPrefetchOptions.ReplayBudget"/> is 0, or the operating system replays
    /// the start itself (Windows' operation recorder).
    /// </summary>
    NotReplayed,

    /// <summary>
    /// A manifest of this build was found and not replayed, because the start was warm: the process had read less than
    /// <see cref="StartupPrefetchOptions.ColdStartThreshold"/> from the disk when it began
    /// (<see cref="StartupPrefetchSummary.DiskReadBytesAtBegin"/>).
    /// </summary>
    SkippedWarm,
}
