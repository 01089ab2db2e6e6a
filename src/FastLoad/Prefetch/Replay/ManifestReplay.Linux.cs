using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Prefetch;

internal sealed partial class ManifestReplay
{
    /// <summary>
    /// One <c>posix_fadvise(WILLNEED)</c> reads at most the device's largest request (<c>queue/max_sectors_kb</c>) on a
    /// descriptor without read-ahead, and quietly leaves the rest: the range is advised in pieces no larger. 128 KiB
    /// where the device does not say (no disk has less); at most 2 MiB, the kernel's own step.
    /// </summary>
    private const long DefaultAdviceChunk = 128 * 1024;

    private const long MaxAdviceChunk = 2 * 1024 * 1024;

    private const int FadviseRandom = 1;

    /// <summary>
    /// Opens as every FastLoad read opens (<see cref="ReadableFile.ReadFlags"/>: a FIFO in the file's place cannot block),
    /// and describes what was opened with one <c>statx</c>: its kind, length and time, which the replay compares. An
    /// open that fails says why, without an exception: a missing file (changed), no descriptor left (worth a retry with
    /// fewer held), or another refusal.
    /// </summary>
    private static SafeFileHandle? OpenLinux(string path, out FileVersion version, out Opening opening)
    {
        version = default;
        if (ReadableFile.TryOpenNative(path, ReadableFile.ReadFlags, out int errno) is not { } handle)
        {
            opening = errno switch
            {
                Interop.ENOENT or Interop.ENOTDIR => Opening.Changed,
                Interop.EMFILE or Interop.ENFILE => Opening.OutOfDescriptors,
                _ => Opening.Unopenable,
            };
            return null;
        }

        try
        {
            version = FileVersion.Get(handle, path);
            opening = Opening.Opened;
            return handle;
        }
        catch
        {
            handle.Dispose();
            throw;
        }
    }

    /// <summary>
    /// How many descriptors the replay may hold at once: a quarter of those the process may still open
    /// (<c>RLIMIT_NOFILE</c> less what is open now), at most <see cref="MaxHeldFiles"/>, so that the application's own
    /// opens during the start never find the limit reached because of it.
    /// </summary>
    private static unsafe int DescriptorLimitLinux()
    {
        Interop.ResourceLimit limit;
        if (Interop.GetResourceLimit(Interop.ResourceLimitOpenFiles, &limit) != 0 || limit.Current >= int.MaxValue)
        {
            return MaxHeldFiles;
        }

        long open = 0;
        try
        {
            foreach (string _ in Directory.EnumerateFileSystemEntries("/proc/self/fd"))
            {
                open++;
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // No /proc: the limit alone.
        }

        return (int)Math.Clamp(((long)limit.Current - open) / 4, 0, MaxHeldFiles);
    }

    /// <summary>
    /// POSIX_FADV_RANDOM on the replay's own descriptor: the one-byte reads that wait for a range then read no more
    /// than their page when the kernel dropped it. The application's descriptors keep their read-ahead.
    /// </summary>
    private static void DisableReadAheadLinux(SafeFileHandle handle) =>
        _ = Interop.PosixFadvise((int)handle.DangerousGetHandle(), 0, 0, FadviseRandom);

    private static DeviceSettings SettingsForLinux(ulong deviceId)
    {
        StorageDevice device = StorageProbe.DescribeDevice(deviceId);
        bool rotational = device.Kind == StorageKind.Rotational;
        long chunk = device.MaxRequestKilobytes is int kilobytes and > 0 ? Math.Min(kilobytes * 1024L, MaxAdviceChunk) : DefaultAdviceChunk;
        return new DeviceSettings(deviceId, rotational, chunk, rotational ? RotationalMergeGap : 0);
    }
}
