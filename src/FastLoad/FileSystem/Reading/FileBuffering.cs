namespace FastLoad;

/// <summary>
/// Whether large files are read through the operating system's page cache, by whole-file loads and by
/// <c>FileLoader.ReadChunksAsync</c> (which streams unbuffered on Linux and macOS only).
/// </summary>
public enum FileBuffering
{
    /// <summary>
    /// Unbuffered for files of 1 GiB and more (one-shot reads that would otherwise evict that much of everything else
    /// from the cache), buffered below.
    /// </summary>
    Auto = 0,

    /// <summary>Always through the page cache.</summary>
    Buffered = 1,

    /// <summary>
    /// Around the page cache for every file of at least the large-file threshold, into memory aligned as the device
    /// requires: Linux <c>O_DIRECT</c> (alignment from <c>statx</c>), Windows <c>FILE_FLAG_NO_BUFFERING</c> (sector size
    /// from <c>FILE_STORAGE_INFO</c>), macOS <c>F_NOCACHE</c> (4 KiB). Where the platform or the file system refuses
    /// (tmpfs, some overlays), the read falls back to buffered, and the load logs it once.
    /// </summary>
    Unbuffered = 2,
}
