namespace FastLoad;

/// <summary>
/// The event ids of FastLoad's log messages, grouped by range: 1000s a whole load, 1100s one file, 1200s the start-up
/// manifest (<c>StartupPrefetch</c>).
/// </summary>
public static class FastLoadEventId
{
    /// <summary>A load planned its files and starts reading (Debug).</summary>
    public const int LoadStarting = 1000;

    /// <summary>A load finished (Information).</summary>
    public const int LoadCompleted = 1001;

    /// <summary>A load starts reading from one device, with the parallelism chosen for it (Debug).</summary>
    public const int LaneStarting = 1002;

    /// <summary>An unbuffered read fell back to buffered because the file system refused it; once per load (Information).</summary>
    public const int UnbufferedFallback = 1003;

    /// <summary>The kernel offers no io_uring (too old, or forbidden by a sandbox), so <see cref="IoScheduling.IoUring"/> reads on threads (Debug).</summary>
    public const int IoUringUnavailable = 1004;

    /// <summary>
    /// The load's own machinery failed after the load was disposed (the reader thread that describes the storage, say):
    /// no consumer was left to see the error, which is a bug to report (Warning).
    /// </summary>
    public const int LoadFailedAfterDispose = 1005;

    /// <summary>A file loaded (Trace).</summary>
    public const int FileLoaded = 1100;

    /// <summary>A file could not be loaded (Warning).</summary>
    public const int FileFailed = 1101;

    /// <summary>
    /// An entry of a folder preloaded by <c>FastLoad.Hosting</c> was skipped, as <see cref="FileFailed"/> would have said
    /// had the folder been loaded with a logger; logged when the host starts, with the reason (Warning).
    /// </summary>
    public const int PreloadedEntrySkipped = 1102;

    /// <summary>No startup manifest was found where the start looked; the start is recorded when it ends (Debug).</summary>
    public const int StartupManifestNotFound = 1200;

    /// <summary>The startup manifest was recorded by another build of the application: not replayed, and rewritten when the start ends (Information).</summary>
    public const int StartupManifestStale = 1201;

    /// <summary>The startup manifest cannot be read or is not valid: not replayed, and rewritten when the start ends (Warning).</summary>
    public const int StartupManifestCorrupt = 1202;

    /// <summary>The replay of a startup manifest ended: bytes asked of the disk, bytes already cached, files changed since (Debug).</summary>
    public const int StartupManifestReplayed = 1203;

    /// <summary>The start was recorded into its manifest, written or found unchanged (Debug).</summary>
    public const int StartupManifestRecorded = 1204;

    /// <summary>The start's manifest could not be written to any of the places tried (Warning).</summary>
    public const int StartupManifestNotWritten = 1205;

    /// <summary>The startup prefetch stopped on an unexpected error; the application goes on unaffected (Warning).</summary>
    public const int StartupPrefetchFailed = 1206;

    /// <summary>A startup manifest was not replayed: the process had read too little from the disk for the start to be cold (Debug).</summary>
    public const int StartupManifestSkippedWarm = 1207;
}
