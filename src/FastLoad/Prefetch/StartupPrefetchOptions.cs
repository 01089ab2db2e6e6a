using System.ComponentModel.DataAnnotations;
using System.Text;

namespace FastLoad;

/// <summary>Options of <see cref="StartupPrefetch.Begin(StartupPrefetchOptions?, Microsoft.Extensions.Logging.ILogger?)"/>, copied when a start begins.</summary>
public sealed class StartupPrefetchOptions
{
    /// <summary>Gets or sets the manifest file: where the last start's is read and this start's is written.</summary>
    /// <value>
    /// The default value is <see langword="null"/>: <c>&lt;app&gt;.startup-manifest</c> in the application's folder
    /// (<see cref="AppContext.BaseDirectory"/>) if it can be written there, else in a per-user cache folder
    /// (<c>$XDG_CACHE_HOME/fastload/startup</c> or <c>~/.cache/fastload/startup</c> on Linux,
    /// <c>~/Library/Caches/FastLoad/startup</c> on macOS, <c>%LOCALAPPDATA%\FastLoad\startup</c> on Windows).
    /// </value>
    public string? ManifestPath { get; set; }

    /// <summary>Gets or sets what identifies this build of the application; a manifest recorded by another build is not replayed.</summary>
    /// <value>
    /// The default value is <see langword="null"/>: the entry file's name, length and last write time (<c>app.dll</c>,
    /// or the executable of a single-file or NativeAOT application), which every build changes. At most 1,024 bytes of
    /// UTF-8.
    /// </value>
    public string? BuildKey { get; set; }

    /// <summary>Gets or sets the most bytes the replay asks of the disk; 0 records the start without replaying.</summary>
    /// <value>The default value is 256 MiB. What is already cached is not counted.</value>
    [Range(0, long.MaxValue)]
    public long ReplayBudget { get; set; } = StartupPrefetchConstants.DefaultReplayBudget;

    /// <summary>
    /// Gets or sets how much the process must have read from the disk (not from the page cache) when the start begins
    /// for its manifest to be replayed. A start that read less found the .NET host, the runtime and the application
    /// cached: it is taken to be warm, and costs next to nothing, because the manifest is not even opened until the
    /// start ends. 0 replays every start, checking what is cached.
    /// </summary>
    /// <value>
    /// The default value is 128 KiB. Linux only (the kernel's per-process I/O accounting); on other systems every start
    /// is replayed.
    /// </value>
    [Range(0, long.MaxValue)]
    public long ColdStartThreshold { get; set; } = StartupPrefetchConstants.DefaultColdStartThreshold;

    /// <summary>
    /// Gets or sets a value indicating whether, where the application lies on a spinning disk (Linux), <see
    /// cref="StartupPrefetch.Begin(StartupPrefetchOptions?, Microsoft.Extensions.Logging.ILogger?)"/> returns only once the
    /// replay has read the manifest, in one sweep at normal I/O priority: the application's own reads beside the replay
    /// would make the disk seek between the two, and after the sweep its start finds what it needs cached.
    /// </summary>
    /// <value>
    /// The default value is <see langword="true"/>. Elsewhere, and with <see langword="false"/>, <c>Begin</c> returns at
    /// once and the replay reads beside the start at low I/O priority.
    /// </value>
    public bool WaitOnSpinningDisk { get; set; } = true;

    /// <summary>Gets or sets a value indicating whether the start is recorded into the manifest when it ends.</summary>
    /// <value>The default value is <see langword="true"/>. With <see langword="false"/> the manifest is only replayed, never written.</value>
    public bool Record { get; set; } = true;

    /// <summary>
    /// Gets or sets how long after <see cref="StartupPrefetch.End"/> the start is recorded: what the application reads
    /// until then (a web application's first requests) counts as its start, and the recording stays off the path of those
    /// first requests. <see cref="StartupPrefetch.Dispose"/> records at once.
    /// </summary>
    /// <value>The default value is 2 seconds; from zero to 10 minutes.</value>
    public TimeSpan RecordDelay { get; set; } = StartupPrefetchConstants.DefaultRecordDelay;

    /// <summary>Gets or sets the most files a manifest lists.</summary>
    /// <value>The default value is 4,096; from 1 to 65,536.</value>
    [Range(1, StartupPrefetchConstants.MaxManifestFiles)]
    public int MaxManifestFiles { get; set; } = StartupPrefetchConstants.DefaultMaxManifestFiles;

    /// <summary>Gets or sets the most bytes of file ranges a manifest lists.</summary>
    /// <value>The default value is 512 MiB; at least 1.</value>
    [Range(1, long.MaxValue)]
    public long MaxManifestBytes { get; set; } = StartupPrefetchConstants.DefaultMaxManifestBytes;

    /// <summary>
    /// Gets the files, besides those FastLoad finds, that every recording lists whole: files the application reads itself
    /// at start-up without mapping them or loading them through FastLoad.
    /// </summary>
    /// <value>The default value is an empty list. At most 4,096 paths; relative ones are taken from the current folder when the start ends.</value>
    public IList<string> AdditionalFiles { get; private set; } = [];

    /// <summary>What is wrong with these options, naming each property; <see langword="null"/> when nothing is.</summary>
    /// <remarks>Written out rather than generated, so that a start at the top of <c>Main</c> loads no options library.</remarks>
    internal string? Validate()
    {
        string? failures = null;
        if (ManifestPath is { } path && (path.Length == 0 || path.Contains('\0', StringComparison.Ordinal)))
        {
            Add(ref failures, $"{nameof(ManifestPath)} must be a file path; it is empty or holds a NUL character.");
        }

        if (BuildKey is { } key && (key.Length == 0 || Encoding.UTF8.GetByteCount(key) > Prefetch.ManifestFormat.MaxBuildKeyBytes))
        {
            Add(ref failures, $"{nameof(BuildKey)} must be 1 to {Prefetch.ManifestFormat.MaxBuildKeyBytes} bytes of UTF-8.");
        }

        if (ReplayBudget < 0)
        {
            Add(ref failures, $"{nameof(ReplayBudget)} must be 0 or more; it is {ReplayBudget}.");
        }

        if (ColdStartThreshold < 0)
        {
            Add(ref failures, $"{nameof(ColdStartThreshold)} must be 0 or more; it is {ColdStartThreshold}.");
        }

        if (RecordDelay < TimeSpan.Zero || RecordDelay > StartupPrefetchConstants.MaxRecordDelay)
        {
            Add(ref failures, $"{nameof(RecordDelay)} must be between 0 and {StartupPrefetchConstants.MaxRecordDelay}; it is {RecordDelay}.");
        }

        if (MaxManifestFiles is < 1 or > StartupPrefetchConstants.MaxManifestFiles)
        {
            Add(ref failures, $"{nameof(MaxManifestFiles)} must be between 1 and {StartupPrefetchConstants.MaxManifestFiles}; it is {MaxManifestFiles}.");
        }

        if (MaxManifestBytes < 1)
        {
            Add(ref failures, $"{nameof(MaxManifestBytes)} must be at least 1; it is {MaxManifestBytes}.");
        }

        if (AdditionalFiles is null || AdditionalFiles.Count > StartupPrefetchConstants.MaxAdditionalFiles || !AllPaths(AdditionalFiles))
        {
            Add(ref failures, $"{nameof(AdditionalFiles)} must hold at most {StartupPrefetchConstants.MaxAdditionalFiles} file paths, none empty.");
        }

        return failures;
    }

    /// <summary>A copy, so that a start is not changed by later changes to the options it began with.</summary>
    internal StartupPrefetchOptions Clone()
    {
        var copy = (StartupPrefetchOptions)MemberwiseClone();
        copy.AdditionalFiles = AdditionalFiles is null ? null! : [.. AdditionalFiles];
        return copy;
    }

    private static bool AllPaths(IList<string> files)
    {
        foreach (string file in files)
        {
            if (string.IsNullOrEmpty(file) || file.Contains('\0', StringComparison.Ordinal))
            {
                return false;
            }
        }

        return true;
    }

    private static void Add(ref string? failures, string failure) => failures = failures is null ? failure : $"{failures} {failure}";
}
