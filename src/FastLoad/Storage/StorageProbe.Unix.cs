namespace FastLoad;

public static partial class StorageProbe
{
    private static readonly string[] NetworkFileSystems = ["nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph", "glusterfs", "fuse.sshfs", "afs", "lustre"];
    private static readonly string[] MemoryFileSystems = ["tmpfs", "ramfs", "devtmpfs"];

    private static StorageDevice ProbeLinux(string id, uint major, uint minor)
    {
        (string? fileSystem, string? source) = FindMount(id);
        if (fileSystem is not null && NetworkFileSystems.Contains(fileSystem))
        {
            return new StorageDevice(id, source ?? id, StorageKind.Network, StorageBus.Network, null, null, null, fileSystem);
        }

        if (fileSystem is not null && MemoryFileSystems.Contains(fileSystem))
        {
            return new StorageDevice(id, source ?? id, StorageKind.Memory, StorageBus.Memory, null, null, null, fileSystem);
        }

        string? block = BlockDeviceDirectory(major, minor, source);
        if (block is null)
        {
            // Overlay, a btrfs subvolume whose source is not a device, FUSE: no block device to ask.
            return new StorageDevice(id, source ?? id, StorageKind.Unknown, StorageBus.Unknown, null, null, null, fileSystem);
        }

        return DescribeBlockDevice(id, block, fileSystem, depth: 0);
    }

    private static StorageDevice DescribeBlockDevice(string id, string block, string? fileSystem, int depth)
    {
        string name = Path.GetFileName(block);

        // Device mapper (LVM, dm-crypt) and md RAID: the underlying devices decide.
        string slaves = Path.Combine(block, "slaves");
        if (depth < 4 && Directory.Exists(slaves) && Directory.EnumerateDirectories(slaves).FirstOrDefault() is { } slave)
        {
            StorageDevice under = DescribeBlockDevice(id, ResolveDirectory(slave), fileSystem, depth + 1);
            return new StorageDevice(id, $"{name} on {under.Name}", under.Kind, under.Bus, under.IsRotational, ReadInt(block, "queue/nr_requests") ?? under.QueueSize, under.Model, fileSystem);
        }

        bool? rotational = ReadInt(block, "queue/rotational") is int flag ? flag != 0 : null;
        StorageBus bus = name switch
        {
            _ when name.StartsWith("nvme", StringComparison.Ordinal) => StorageBus.Nvme,
            _ when name.StartsWith("vd", StringComparison.Ordinal) => StorageBus.Virtio,
            _ when name.StartsWith("sd", StringComparison.Ordinal) || name.StartsWith("hd", StringComparison.Ordinal) => StorageBus.Scsi,
            _ when name.StartsWith("mmcblk", StringComparison.Ordinal) => StorageBus.Mmc,
            _ when name.StartsWith("zram", StringComparison.Ordinal) || name.StartsWith("ram", StringComparison.Ordinal) || name.StartsWith("pmem", StringComparison.Ordinal) => StorageBus.Memory,
            _ => StorageBus.Unknown,
        };
        StorageKind kind = bus switch
        {
            StorageBus.Memory => StorageKind.Memory,
            StorageBus.Nvme => StorageKind.SolidState,
            _ when rotational == false => StorageKind.SolidState,

            // A virtio disk's rotational flag is the hypervisor's default, not a property of what backs it.
            StorageBus.Virtio => StorageKind.Unknown,
            _ when rotational == true => StorageKind.Rotational,
            _ => StorageKind.Unknown,
        };
        string? model = ReadText(block, "device/model");
        return new StorageDevice(id, name, kind, bus, rotational, ReadInt(block, "queue/nr_requests"), model, fileSystem);
    }

    /// <summary>The sysfs directory of the whole disk for a device number (a partition maps to its disk).</summary>
    private static string? BlockDeviceDirectory(uint major, uint minor, string? source)
    {
        string link = $"/sys/dev/block/{major}:{minor}";
        if (!Directory.Exists(link))
        {
            // Anonymous device numbers (btrfs, overlay): a device-path source names the block device.
            if (source is null || !source.StartsWith("/dev/", StringComparison.Ordinal) || !File.Exists(source))
            {
                return null;
            }

            link = $"/sys/class/block/{Path.GetFileName(ResolveFile(source))}";
            if (!Directory.Exists(link))
            {
                return null;
            }
        }

        string directory = ResolveDirectory(link);
        return File.Exists(Path.Combine(directory, "partition")) ? Path.GetDirectoryName(directory) : directory;
    }

    /// <summary>The file system type and source of the mount with this device number, from /proc/self/mountinfo.</summary>
    private static (string? FileSystem, string? Source) FindMount(string id)
    {
        try
        {
            foreach (string line in File.ReadLines("/proc/self/mountinfo"))
            {
                // "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw": fields after " - " are type, source.
                string[] fields = line.Split(' ');
                int separator = Array.IndexOf(fields, "-");
                if (fields.Length > 2 && fields[2] == id && separator > 0 && separator + 2 < fields.Length)
                {
                    return (fields[separator + 1], fields[separator + 2]);
                }
            }
        }
        catch (IOException)
        {
        }

        return (null, null);
    }

    private static string ResolveDirectory(string path) =>
        new DirectoryInfo(path).ResolveLinkTarget(returnFinalTarget: true)?.FullName ?? Path.GetFullPath(path);

    private static string ResolveFile(string path) =>
        new FileInfo(path).ResolveLinkTarget(returnFinalTarget: true)?.FullName ?? path;

    private static int? ReadInt(string directory, string relative) =>
        int.TryParse(ReadText(directory, relative), System.Globalization.NumberStyles.Integer, System.Globalization.CultureInfo.InvariantCulture, out int value) ? value : null;

    private static string? ReadText(string directory, string relative)
    {
        string path = Path.Combine(directory, relative);

        // Many devices lack some attributes (a virtio disk has no model): checked first, because an exception costs
        // a new process more than the whole description.
        if (!File.Exists(path))
        {
            return null;
        }

        try
        {
            string text = File.ReadAllText(path).Trim();
            return text.Length == 0 ? null : text;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }
}
