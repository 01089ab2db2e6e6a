using System.Numerics;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

internal static partial class UnbufferedReader
{
    // Larger "sectors" (some RAID controllers report their stripe) would only inflate the tail read.
    private const uint MaxSectorAlignment = 1024 * 1024;

    /// <summary>
    /// A second handle with FILE_FLAG_NO_BUFFERING (Windows sets it only when a file is opened), checked to be the file
    /// the first one opened. Asynchronous, because Windows serializes all I/O on a synchronous handle, which would
    /// queue the reads in flight one behind the other; <see cref="RandomAccess"/> still reads it synchronously, and
    /// returns the short count at the end of the file.
    /// </summary>
    [SupportedOSPlatform("windows")]
    private static FileContents? TryReadWindows(
        SafeFileHandle checkedHandle, string path, long length, ReadSettings settings, CancellationToken cancellationToken)
    {
        SafeFileHandle direct;
        try
        {
            direct = File.OpenHandle(
                path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, FileOptions.Asynchronous | Interop.NoBuffering);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            settings.ReportFallback(path, ex.Message);
            return null;
        }

        using (direct)
        {
            if (!IsSameFile(checkedHandle, direct, length))
            {
                settings.ReportFallback(path, "the file was replaced or changed size between the buffered and the unbuffered open");
                return null;
            }

            int alignment = SectorAlignment(direct);
            if (alignment == 0 || ReadSettings.ChunkSize % alignment != 0)
            {
                settings.ReportFallback(path, "the volume's sector size does not divide the read size");
                return null;
            }

            try
            {
                return ReadAligned(direct, path, length, alignment, cancellationToken);
            }
            catch (IOException ex)
            {
                // ERROR_INVALID_PARAMETER where a file system refuses unbuffered reads; a real I/O error fails the buffered read too.
                settings.ReportFallback(path, ex.Message);
                return null;
            }
        }
    }

    /// <summary>Whether both handles name one file (volume serial number and file index) of <paramref name="length"/> bytes.</summary>
    [SupportedOSPlatform("windows")]
    private static bool IsSameFile(SafeFileHandle checkedHandle, SafeFileHandle direct, long length) =>
        Interop.GetFileInformationByHandle(checkedHandle, out Interop.ByHandleFileInformation first)
        && Interop.GetFileInformationByHandle(direct, out Interop.ByHandleFileInformation second)
        && first.VolumeSerialNumber == second.VolumeSerialNumber
        && first.FileIndexHigh == second.FileIndexHigh
        && first.FileIndexLow == second.FileIndexLow
        && (((long)second.FileSizeHigh << 32) | second.FileSizeLow) == length;

    /// <summary>
    /// The largest of the logical sector size (offsets and sizes must be multiples of it), the physical one (buffers
    /// should be aligned to it) and 4 KiB, from FILE_STORAGE_INFO; 4 KiB where Windows does not report them (before
    /// Windows 8); 0 where a sector size is not a power of two or is implausibly large.
    /// </summary>
    [SupportedOSPlatform("windows")]
    private static unsafe int SectorAlignment(SafeFileHandle direct)
    {
        Interop.FileStorageInfo info = default;
        if (!Interop.GetFileInformationByHandleEx(direct, Interop.FileStorageInfoClass, &info, (uint)sizeof(Interop.FileStorageInfo)))
        {
            return FallbackAlignment;
        }

        uint logical = info.LogicalBytesPerSector;
        uint physical = info.PhysicalBytesPerSectorForPerformance;
        if ((logical != 0 && !BitOperations.IsPow2(logical)) || (physical != 0 && !BitOperations.IsPow2(physical)))
        {
            return 0;
        }

        uint sector = Math.Max(FallbackAlignment, Math.Max(logical, physical));
        return sector <= MaxSectorAlignment ? (int)sector : 0;
    }
}
