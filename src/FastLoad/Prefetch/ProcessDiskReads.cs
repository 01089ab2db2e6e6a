namespace FastLoad.Prefetch;

/// <summary>
/// What this process has read from storage so far, not from the page cache. A start that read next to nothing before
/// its first line found the runtime and the application cached: a warm start, which a replay would only check.
/// </summary>
internal static partial class ProcessDiskReads
{
    /// <summary>The bytes read from storage since the process began; <see langword="null"/> where the system does not say.</summary>
    public static long? BytesSoFar() => OperatingSystem.IsLinux() ? BytesSoFarLinux() : null;
}
