namespace FastLoad;

/// <summary>Whether large files are read through the operating system's page cache.</summary>
public enum FileBuffering
{
    /// <summary>Unbuffered for files of 256 MiB and more (one-shot reads that would otherwise evict the cache of everything else), buffered below.</summary>
    Auto = 0,

    /// <summary>Always through the page cache.</summary>
    Buffered = 1,

    /// <summary>
    /// Around the page cache for every file of at least the large-file threshold (Linux <c>O_DIRECT</c>, into
    /// memory aligned as the device requires). Where the file system refuses (tmpfs, some overlays), the read falls
    /// back to buffered, and the load logs it once.
    /// </summary>
    Unbuffered = 2,
}
