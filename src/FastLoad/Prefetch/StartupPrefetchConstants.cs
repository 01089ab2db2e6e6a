namespace FastLoad;

/// <summary>The defaults and limits of <see cref="StartupPrefetchOptions"/>.</summary>
internal static class StartupPrefetchConstants
{
    /// <summary>
    /// 256 MiB: the ASP.NET Core template's start reads about 50 MB (docs/startup-manifest.md); a spinning disk at
    /// 120 MB/s would read the default in about two seconds.
    /// </summary>
    public const long DefaultReplayBudget = 256L * 1024 * 1024;

    /// <summary>
    /// 128 KiB: a cold start has read megabytes before <c>Main</c> (the host, the runtime and CoreLib fault in), while a
    /// warm one reads nothing, or the few pages a memory manager reclaimed from an idle cache.
    /// </summary>
    public const long DefaultColdStartThreshold = 128 * 1024;

    public const int DefaultMaxManifestFiles = 4096;

    public const int MaxManifestFiles = 65_536;

    public const long DefaultMaxManifestBytes = 512L * 1024 * 1024;

    public const int MaxAdditionalFiles = 4096;

    /// <summary>Two seconds: long enough for a web application's first requests, short enough that the process is still there.</summary>
    public static readonly TimeSpan DefaultRecordDelay = TimeSpan.FromSeconds(2);

    public static readonly TimeSpan MaxRecordDelay = TimeSpan.FromMinutes(10);
}
