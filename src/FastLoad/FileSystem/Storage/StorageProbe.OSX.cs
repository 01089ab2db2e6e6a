using System.Runtime.Versioning;
using FastLoad.FileSystem;

namespace FastLoad;

public static partial class StorageProbe
{
    private static readonly string[] DarwinNetworkFileSystems = ["nfs", "smbfs", "afpfs", "webdav", "cifs", "ftp"];
    private static readonly string[] DarwinMemoryFileSystems = ["devfs", "tmpfs"];

    /// <summary>Best effort: statfs names the file system and its source; the disk behind a local volume is not asked (that takes IOKit).</summary>
    [SupportedOSPlatform("macos")]
    private static unsafe StorageDevice DescribeMacOS(string path)
    {
        if (Interop.StatfsDarwin(path, out Interop.DarwinStatfs status) != 0)
        {
            return new StorageDevice(string.Empty, path, StorageKind.Unknown, StorageBus.Unknown, null, null, null, null);
        }

        string? fileSystem = NativeString(new ReadOnlySpan<byte>(status.FileSystemTypeName, Interop.DarwinFileSystemTypeNameLength));
        string? mountPoint = NativeString(new ReadOnlySpan<byte>(status.MountedOnName, Interop.DarwinMaxPathLength));
        string? source = NativeString(new ReadOnlySpan<byte>(status.MountedFromName, Interop.DarwinMaxPathLength));
        string key = mountPoint ?? path;
        if (Cache.TryGet(key, out StorageDevice? cached))
        {
            return cached;
        }

        // f_fsid.val[0] is the device number of a local volume: major in the top 8 bits, minor in the low 24 (sys/types.h).
        uint device = (uint)status.FileSystemId0;
        string id = $"{device >> 24}:{device & 0xFFFFFF}";
        string name = source is null ? key : source.StartsWith("/dev/", StringComparison.Ordinal) ? source[5..] : source;
        StorageDevice described = fileSystem switch
        {
            not null when DarwinNetworkFileSystems.Contains(fileSystem) => new StorageDevice(
                id, name, StorageKind.Network, StorageBus.Network, null, null, null, fileSystem),
            not null when DarwinMemoryFileSystems.Contains(fileSystem) => new StorageDevice(
                id, name, StorageKind.Memory, StorageBus.Memory, null, null, null, fileSystem),
            _ => new StorageDevice(id, name, StorageKind.Unknown, StorageBus.Unknown, null, null, null, fileSystem),
        };
        return Cache.Add(key, described);
    }
}
