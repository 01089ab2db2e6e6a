using System.Text;
using FastLoad.FileSystem;

namespace FastLoad;

/// <summary>
/// Finds and describes the storage device that holds a path, as a load does to choose how many reads to run at once.
/// Public so that an application can see what FastLoad detects, as <c>fastload probe</c> shows it, and set
/// <c>FileLoaderOptions.Storage</c> where the detection is wrong (a virtual disk often reports rotational whatever
/// backs it). Results are cached per device for 10 seconds.
/// </summary>
public static partial class StorageProbe
{
    private static readonly StorageProbeCache Cache = new(TimeProvider.System, StorageProbeCache.DefaultLifetime);

    /// <summary>Describes the device that holds <paramref name="path"/>.</summary>
    /// <param name="path">A file or directory.</param>
    /// <returns>
    /// The device; <see cref="StorageKind.Unknown"/> where the platform or the file system does not say. Linux follows
    /// the mount to its block device in sysfs. Windows asks the volume's disk (<c>IOCTL_STORAGE_QUERY_PROPERTY</c>: seek
    /// penalty, bus, model) and the drive type (network, RAM disk). macOS tells only network and memory file systems
    /// apart (<c>statfs</c>); other volumes are <see cref="StorageKind.Unknown"/>.
    /// </returns>
    /// <exception cref="ArgumentException"><paramref name="path"/> is <see langword="null"/> or empty.</exception>
    /// <exception cref="IOException"><paramref name="path"/> cannot be examined; the message names it.</exception>
    public static StorageDevice Describe(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);

        // Throws, naming the path, where it does not exist; every later failure only leaves fields unknown.
        FileStatus status = FileStatus.Get(path);
        if (OperatingSystem.IsLinux())
        {
            return DescribeDevice(status.DeviceId);
        }

        if (OperatingSystem.IsWindows())
        {
            return DescribeWindows(path);
        }

        if (OperatingSystem.IsMacOS())
        {
            return DescribeMacOS(path);
        }

        return new StorageDevice(
            string.Empty, Path.GetPathRoot(Path.GetFullPath(path)) ?? path, StorageKind.Unknown, StorageBus.Unknown, null, null, null, null);
    }

    /// <summary>Describes a device by the id <c>statx</c> gave a file on it (major in the high 32 bits).</summary>
    internal static StorageDevice DescribeDevice(ulong deviceId)
    {
        uint major = (uint)(deviceId >> 32);
        uint minor = (uint)deviceId;
        string id = $"{major}:{minor}";
        return Cache.TryGet(id, out StorageDevice? cached) ? cached : Cache.Add(id, ProbeLinux(id, major, minor));
    }

    /// <summary>The NUL-terminated text at the start of <paramref name="bytes"/>, trimmed; <see langword="null"/> where empty.</summary>
    private static string? NativeString(ReadOnlySpan<byte> bytes)
    {
        int end = bytes.IndexOf((byte)0);
        string text = Encoding.UTF8.GetString(end < 0 ? bytes : bytes[..end]).Trim();
        return text.Length == 0 ? null : text;
    }
}
