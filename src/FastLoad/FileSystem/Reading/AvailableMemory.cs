namespace FastLoad.FileSystem;

/// <summary>
/// The memory the process can still get for a file: no more than the runtime may use (the machine's memory, or the
/// container's limit) and, on Linux, no more than the kernel reports available now. A file larger than that fails
/// with a clear error before anything is allocated, rather than ending the process out of memory.
/// </summary>
internal static class AvailableMemory
{
    /// <summary>Files below this size are not checked: reading <c>/proc/meminfo</c> would cost more than they risk.</summary>
    internal const long CheckThreshold = 64L * 1024 * 1024;

    public static long Bytes()
    {
        long available = GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
        return OperatingSystem.IsLinux() && KernelAvailable() is { } kernel ? Math.Min(available, kernel) : available;
    }

    /// <summary>The error for a file of <paramref name="length"/> bytes that cannot be held in <paramref name="available"/> bytes.</summary>
    public static InsufficientMemoryException TooLarge(string path, long length, long available) =>
        new($"'{path}' is {length:N0} bytes, more than the {available:N0} bytes of memory this process can get; "
            + "read it in chunks (FileLoader.ReadChunksAsync) or memory-mapped (UseMemoryMapping).");

    /// <summary>MemAvailable from /proc/meminfo, in bytes; <see langword="null"/> where it cannot be read.</summary>
    private static long? KernelAvailable()
    {
        try
        {
            foreach (string line in File.ReadLines("/proc/meminfo"))
            {
                if (line.StartsWith("MemAvailable:", StringComparison.Ordinal)
                    && long.TryParse(
                        line.AsSpan("MemAvailable:".Length).Trim().TrimEnd("kB").Trim(),
                        System.Globalization.NumberStyles.None,
                        System.Globalization.CultureInfo.InvariantCulture,
                        out long kib))
                {
                    return kib * 1024;
                }
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // No /proc: the runtime's figure stands alone.
        }

        return null;
    }
}
