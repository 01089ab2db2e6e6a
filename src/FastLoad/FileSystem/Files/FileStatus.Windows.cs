using System.Collections.Concurrent;
using System.Runtime.Versioning;

namespace FastLoad.FileSystem;

internal readonly partial record struct FileStatus
{
    // Directories seen, with the id of their volume; cleared when full rather than kept in order.
    private const int MaxCachedDirectories = 4096;

    // Keeps a volume's id from ever being 0, which would mean "unknown".
    private const ulong VolumeIdTag = 1UL << 32;

    private static readonly ConcurrentDictionary<string, ulong> DirectoryVolumes = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>
    /// As on macOS, plus the volume's serial number as the device id, so that files on different volumes get lanes of
    /// their own. It is looked up once per directory: a file lies on its directory's volume (unless it is itself a
    /// link to another volume; then only the lane and its prior are off).
    /// </summary>
    [SupportedOSPlatform("windows")]
    private static FileStatus GetWindows(string path)
    {
        FileStatus status = GetPortable(path);
        return status.Kind == FileKind.Regular ? status with { DeviceId = VolumeId(path) } : status;
    }

    [SupportedOSPlatform("windows")]
    private static ulong VolumeId(string path)
    {
        string full = Path.GetFullPath(path);
        return VolumeIdOfDirectory(Path.GetDirectoryName(full) ?? full);
    }

    [SupportedOSPlatform("windows")]
    private static ulong VolumeIdOfDirectory(string directory)
    {
        directory = Path.GetFullPath(directory);
        if (DirectoryVolumes.TryGetValue(directory, out ulong id))
        {
            return id;
        }

        id = WindowsVolume.RootOf(directory) is { } root && WindowsVolume.TryGetInformation(root, out uint serial, out _) ? VolumeIdTag | serial : 0;
        if (DirectoryVolumes.Count >= MaxCachedDirectories)
        {
            DirectoryVolumes.Clear();
        }

        DirectoryVolumes[directory] = id;
        return id;
    }
}
