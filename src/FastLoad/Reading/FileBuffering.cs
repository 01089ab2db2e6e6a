namespace FastLoad;

/// <summary>Whether large files are read through the operating system's page cache.</summary>
public enum FileBuffering
{
    /// <summary>Unbuffered for files of 1 GiB and more (one-shot reads that would otherwise evict that much of everything else from the cache), buffered below.</summary>
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
