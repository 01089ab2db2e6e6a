namespace FastLoad;

/// <summary>The event ids of FastLoad's log messages, grouped by range: 1000s a whole load, 1100s one file.</summary>
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

    /// <summary>A file loaded (Trace).</summary>
    public const int FileLoaded = 1100;

    /// <summary>A file could not be loaded (Warning).</summary>
    public const int FileFailed = 1101;

    /// <summary>
    /// An entry of a folder preloaded by <c>FastLoad.Hosting</c> was skipped, as <see cref="FileFailed"/> would have said
    /// had the folder been loaded with a logger; logged when the host starts, with the reason (Warning).
    /// </summary>
    public const int PreloadedEntrySkipped = 1102;
}
