using System.Collections.Concurrent;

namespace FastLoad;

/// <summary>Finds and describes the storage device that holds a path. Results are cached per device.</summary>
public static partial class StorageProbe
{
    private static readonly ConcurrentDictionary<string, StorageDevice> Cache = new(StringComparer.Ordinal);

    /// <summary>Describes the device that holds <paramref name="path"/>.</summary>
    /// <param name="path">A file or directory.</param>
    /// <returns>The device; <see cref="StorageKind.Unknown"/> where the platform or the file system does not say (Windows and macOS: not probed yet).</returns>
    /// <exception cref="ArgumentException"><paramref name="path"/> is <see langword="null"/> or empty.</exception>
    /// <exception cref="IOException"><paramref name="path"/> cannot be examined; the message names it.</exception>
    public static StorageDevice Describe(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        if (!OperatingSystem.IsLinux())
        {
            return new StorageDevice(string.Empty, Path.GetPathRoot(Path.GetFullPath(path)) ?? path, StorageKind.Unknown, StorageBus.Unknown, null, null, null, null);
        }

        Planning.FileStatus status = Planning.FileStatus.Get(path);
        return DescribeDevice(status.DeviceId);
    }

    /// <summary>Describes a device by the id <c>statx</c> gave a file on it (major in the high 32 bits).</summary>
    internal static StorageDevice DescribeDevice(ulong deviceId)
    {
        uint major = (uint)(deviceId >> 32);
        uint minor = (uint)deviceId;
        string id = $"{major}:{minor}";
        return Cache.GetOrAdd(id, static (key, numbers) => ProbeLinux(key, numbers.major, numbers.minor), (major, minor));
    }
}
