using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

/// <summary>
/// Reads a large file around the page cache into native memory aligned as the device requires: no copy through the
/// cache, and the cache of everything else is left as it was. Requests are whole multiples of the alignment; the last
/// one may return less (the unaligned tail). Linux switches <c>O_DIRECT</c> on for the descriptor already opened and
/// checked, Windows opens a second handle with <c>FILE_FLAG_NO_BUFFERING</c>, macOS sets <c>F_NOCACHE</c> on the
/// descriptor. Where the platform or the file system refuses, <see langword="null"/> is returned (and the refusal
/// reported once per load), so that the caller reads the checked handle buffered.
/// </summary>
internal static partial class UnbufferedReader
{
    /// <summary>Used where the system does not report the alignment (Linux before 6.1, macOS): the common logical block size.</summary>
    internal const int FallbackAlignment = 4096;

    public static FileContents? TryRead(SafeFileHandle handle, string path, long length, ReadSettings settings, CancellationToken cancellationToken)
    {
        if (OperatingSystem.IsWindows() && !settings.SimulateRefusal)
        {
            return TryReadWindows(handle, path, length, settings, cancellationToken);
        }

        int alignment = TryEnable(handle, path, ReadSettings.ChunkSize, settings);
        return alignment == 0 ? null : ReadAligned(handle, path, length, alignment, cancellationToken);
    }

    /// <summary>
    /// Switches the checked descriptor to unbuffered reads where the platform can do so on the descriptor itself (Linux
    /// <c>O_DIRECT</c>, macOS <c>F_NOCACHE</c>), and returns the alignment every buffer, offset and request must keep;
    /// 0, with the refusal reported once, where the reads stay buffered (Windows needs a second handle, which only
    /// whole-file reads open; a chunk size that is not a multiple of the alignment).
    /// </summary>
    public static int TryEnable(SafeFileHandle handle, string path, int chunkSize, ReadSettings settings)
    {
        string? refusal = settings.SimulateRefusal ? "refusal simulated"
            : chunkSize % FallbackAlignment != 0 ? $"the chunk size, {chunkSize:N0} bytes, is not a multiple of {FallbackAlignment:N0}"
            : null;
        if (refusal is null)
        {
            if (OperatingSystem.IsLinux())
            {
                return TryEnableLinux(handle, path, chunkSize, settings);
            }

            if (OperatingSystem.IsMacOS())
            {
                return TryEnableMacOS(handle, path, settings);
            }

            refusal = "unbuffered reads of an open descriptor are implemented for Linux and macOS";
        }

        settings.ReportFallback(path, refusal);
        return 0;
    }

    /// <summary>
    /// Reads the file into memory aligned to <paramref name="alignment"/>, every request a whole multiple of it; frees
    /// the memory on failure.
    /// </summary>
    private static FileContents ReadAligned(SafeFileHandle handle, string path, long length, int alignment, CancellationToken cancellationToken) =>
        ChunkedReader.ReadInto(
            NativeContents.AllocateAligned(ChunkedReader.RoundUp(length, alignment), alignment), handle, path, length, alignment, cancellationToken);
}
