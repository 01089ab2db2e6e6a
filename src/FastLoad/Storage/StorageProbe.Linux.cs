using System.Text;

namespace FastLoad;

public static partial class StorageProbe
{
    private static readonly string[] NetworkFileSystems = ["nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph", "glusterfs", "fuse.sshfs", "afs", "lustre"];
    private static readonly string[] MemoryFileSystems = ["tmpfs", "ramfs", "devtmpfs"];

    private static StorageDevice ProbeLinux(string id, uint major, uint minor)
    {
        (string? fileSystem, string? source) = FindMount(id);
        if (fileSystem is not null && Array.IndexOf(NetworkFileSystems, fileSystem) >= 0)
        {
            return new StorageDevice(id, source ?? id, StorageKind.Network, StorageBus.Network, null, null, null, fileSystem);
        }

        if (fileSystem is not null && Array.IndexOf(MemoryFileSystems, fileSystem) >= 0)
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
        StorageBus bus = BusOf(name);

        // Device mapper (LVM, dm-crypt) and md RAID: the underlying devices decide. A disk of a known bus has none, and
        // is not asked: enumerating a directory costs a new process more than the rest of the description.
        string slaves = Path.Combine(block, "slaves");
        if (bus == StorageBus.Unknown && depth < 4 && Directory.Exists(slaves) && Directory.GetDirectories(slaves) is [string slave, ..])
        {
            StorageDevice under = DescribeBlockDevice(id, ResolveDirectory(slave), fileSystem, depth + 1);
            return new StorageDevice(id, $"{name} on {under.Name}", under.Kind, under.Bus, under.IsRotational, ReadInt(block, "queue/nr_requests") ?? under.QueueSize, under.Model, fileSystem);
        }

        bool? rotational = ReadInt(block, "queue/rotational") is int flag ? flag != 0 : null;
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

    /// <summary>The bus a whole disk's kernel name tells.</summary>
    private static StorageBus BusOf(string name) => name switch
        {
            _ when name.StartsWith("nvme", StringComparison.Ordinal) => StorageBus.Nvme,
            _ when name.StartsWith("vd", StringComparison.Ordinal) => StorageBus.Virtio,
            _ when name.StartsWith("sd", StringComparison.Ordinal) || name.StartsWith("hd", StringComparison.Ordinal) => StorageBus.Scsi,
            _ when name.StartsWith("mmcblk", StringComparison.Ordinal) => StorageBus.Mmc,
            _ when name.StartsWith("zram", StringComparison.Ordinal) || name.StartsWith("ram", StringComparison.Ordinal) || name.StartsWith("pmem", StringComparison.Ordinal) => StorageBus.Memory,
            _ => StorageBus.Unknown,
        };

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
        byte[] text;
        try
        {
            text = File.ReadAllBytes("/proc/self/mountinfo");
        }
        catch (IOException)
        {
            return (null, null);
        }

        // Parsed as bytes, line by line in place: a new process then loads no reader, iterator or vectorized search
        // code (which the JIT would have to compile) just to describe a device.
        ReadOnlySpan<byte> rest = text;
        while (!rest.IsEmpty)
        {
            int end = rest.IndexOf((byte)'\n');
            if (MountOf(end < 0 ? rest : rest[..end], id) is { } mount)
            {
                return mount;
            }

            rest = end < 0 ? [] : rest[(end + 1)..];
        }

        return (null, null);
    }

    /// <summary>The type and source of a mountinfo line whose device number is <paramref name="id"/>.</summary>
    /// <remarks>"36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw": the fields after "-" are type and source.</remarks>
    internal static (string FileSystem, string Source)? MountOf(ReadOnlySpan<byte> line, string id)
    {
        ReadOnlySpan<byte> type = default;
        int field = 0;
        bool afterSeparator = false;
        while (!line.IsEmpty)
        {
            int end = line.IndexOf((byte)' ');
            ReadOnlySpan<byte> value = end < 0 ? line : line[..end];
            line = end < 0 ? [] : line[(end + 1)..];
            if (field == 2 && !Ascii.Equals(value, id))
            {
                return null;
            }

            if (afterSeparator)
            {
                if (type.IsEmpty)
                {
                    type = value;
                    continue;
                }

                return value.IsEmpty ? null : (Encoding.UTF8.GetString(type), Encoding.UTF8.GetString(value));
            }

            afterSeparator = field > 2 && value.Length == 1 && value[0] == (byte)'-';
            field++;
        }

        return null;
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
