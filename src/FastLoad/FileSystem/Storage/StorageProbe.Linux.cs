using System.Text;
using FastLoad.FileSystem;

namespace FastLoad;

public static partial class StorageProbe
{
    private static readonly string[] NetworkFileSystems = ["nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph", "glusterfs", "fuse.sshfs", "afs", "lustre"];
    private static readonly string[] MemoryFileSystems = ["tmpfs", "ramfs", "devtmpfs"];

    // sysfs attributes read here are a line or a few short lines.
    private const int AttributeBufferSize = 256;

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

        if (BlockDeviceDirectory(major, minor, source) is not (string block, string name))
        {
            // Overlay, a btrfs subvolume whose source is not a device, FUSE: no block device to ask.
            return new StorageDevice(id, source ?? id, StorageKind.Unknown, StorageBus.Unknown, null, null, null, fileSystem);
        }

        return DescribeBlockDevice(id, block, name, fileSystem, depth: 0);
    }

    private static StorageDevice DescribeBlockDevice(string id, string block, string name, string? fileSystem, int depth)
    {
        StorageBus bus = BusOf(name);

        // Device mapper (LVM, dm-crypt) and md RAID: the underlying devices decide. A disk of a known bus has none, and
        // is not asked: enumerating a directory costs a new process more than the rest of the description.
        string slaves = Path.Combine(block, "slaves");
        if (bus == StorageBus.Unknown && depth < 4 && Directory.Exists(slaves) && Directory.GetDirectories(slaves) is [string slave, ..])
        {
            string slaveBlock = ResolveDirectory(slave);
            StorageDevice under = DescribeBlockDevice(id, slaveBlock, Path.GetFileName(slaveBlock), fileSystem, depth + 1);
            return new StorageDevice(
                id,
                $"{name} on {under.Name}",
                under.Kind,
                under.Bus,
                under.IsRotational,
                ReadInt(block, "queue/nr_requests") ?? under.QueueSize,
                under.Model,
                fileSystem)
            {
                ReadAheadKilobytes = ReadInt(block, "queue/read_ahead_kb") ?? under.ReadAheadKilobytes,
                MaxRequestKilobytes = ReadInt(block, "queue/max_sectors_kb") ?? under.MaxRequestKilobytes,
            };
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
        return new StorageDevice(id, name, kind, bus, rotational, ReadInt(block, "queue/nr_requests"), model, fileSystem)
        {
            ReadAheadKilobytes = ReadInt(block, "queue/read_ahead_kb"),
            MaxRequestKilobytes = ReadInt(block, "queue/max_sectors_kb"),
        };
    }

    /// <summary>The bus a whole disk's kernel name tells.</summary>
    private static StorageBus BusOf(string name) => name switch
    {
        _ when name.StartsWith("nvme", StringComparison.Ordinal) => StorageBus.Nvme,
        _ when name.StartsWith("vd", StringComparison.Ordinal) => StorageBus.Virtio,
        _ when name.StartsWith("sd", StringComparison.Ordinal) || name.StartsWith("hd", StringComparison.Ordinal) => StorageBus.Scsi,
        _ when name.StartsWith("mmcblk", StringComparison.Ordinal) => StorageBus.Mmc,
        _ when name.StartsWith("zram", StringComparison.Ordinal)
            || name.StartsWith("ram", StringComparison.Ordinal)
            || name.StartsWith("pmem", StringComparison.Ordinal) => StorageBus.Memory,
        _ => StorageBus.Unknown,
    };

    /// <summary>
    /// The sysfs directory of the whole disk for a device number (a partition maps to its disk), and the disk's kernel
    /// name. The directory is left as the kernel's symbolic link: reading attributes through it needs no resolving.
    /// </summary>
    private static (string Directory, string Name)? BlockDeviceDirectory(uint major, uint minor, string? source)
    {
        string link = $"/sys/dev/block/{major}:{minor}";
        if (ReadUevent(link) is not { } device)
        {
            // Anonymous device numbers (btrfs, overlay): a device-path source names the block device.
            if (source is null || !source.StartsWith("/dev/", StringComparison.Ordinal) || !File.Exists(source))
            {
                return null;
            }

            link = $"/sys/class/block/{Path.GetFileName(ResolveFile(source))}";
            if (ReadUevent(link) is not { } named)
            {
                return null;
            }

            device = named;
        }

        if (!device.IsPartition)
        {
            return (link, device.Name);
        }

        // The kernel walks ".." from where the link leads, so this is the disk's own directory.
        string disk = link + "/..";
        return ReadUevent(disk) is { } whole ? (disk, whole.Name) : null;
    }

    /// <summary>A block device's kernel name and whether it is a partition, from its <c>uevent</c> attribute.</summary>
    private static (string Name, bool IsPartition)? ReadUevent(string directory)
    {
        Span<byte> buffer = stackalloc byte[AttributeBufferSize];
        return ParseUevent(buffer[..KernelFiles.Read(Path.Join(directory, "uevent"), buffer)]);
    }

    /// <remarks>"MAJOR=8\nMINOR=1\nDEVNAME=sda1\nDEVTYPE=partition\nPARTN=1\n": a name is required.</remarks>
    internal static (string Name, bool IsPartition)? ParseUevent(ReadOnlySpan<byte> text)
    {
        ReadOnlySpan<byte> name = default;
        bool partition = false;
        while (!text.IsEmpty)
        {
            int end = text.IndexOf((byte)'\n');
            ReadOnlySpan<byte> line = end < 0 ? text : text[..end];
            text = end < 0 ? [] : text[(end + 1)..];
            if (line.StartsWith("DEVNAME="u8))
            {
                name = line["DEVNAME="u8.Length..];
            }
            else if (line.StartsWith("DEVTYPE="u8))
            {
                partition = line["DEVTYPE="u8.Length..].SequenceEqual("partition"u8);
            }
        }

        return name.IsEmpty ? null : (Encoding.UTF8.GetString(name), partition);
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

    /// <summary>A sysfs attribute as a non-negative integer; <see langword="null"/> where the device lacks it or it is not one.</summary>
    private static int? ReadInt(string directory, string relative)
    {
        Span<byte> buffer = stackalloc byte[AttributeBufferSize];
        return ParseCount(buffer[..KernelFiles.Read(Path.Join(directory, relative), buffer)]);
    }

    /// <summary>Decimal digits with white space around them ("256\n"), as an <see cref="int"/>; otherwise <see langword="null"/>.</summary>
    internal static int? ParseCount(ReadOnlySpan<byte> text)
    {
        text = text[Ascii.Trim(text)];
        if (text.IsEmpty || text.Length > 9)
        {
            return null;
        }

        int value = 0;
        foreach (byte digit in text)
        {
            if (digit is < (byte)'0' or > (byte)'9')
            {
                return null;
            }

            value = (value * 10) + (digit - '0');
        }

        return value;
    }

    /// <summary>A sysfs attribute's text, trimmed; <see langword="null"/> where the device lacks it or it is empty.</summary>
    private static string? ReadText(string directory, string relative)
    {
        Span<byte> buffer = stackalloc byte[AttributeBufferSize];
        ReadOnlySpan<byte> read = buffer[..KernelFiles.Read(Path.Join(directory, relative), buffer)];
        ReadOnlySpan<byte> text = read[Ascii.Trim(read)];
        return text.IsEmpty ? null : Encoding.UTF8.GetString(text);
    }

    /// <summary>
    /// Whether <see cref="DescribeDevice"/> cannot find the block device with this id
    /// <see cref="StorageKind.Rotational"/>: it says it does not spin (its queue's rotational flag, or its disk's for a
    /// partition, is 0), or it is a virtio disk, whose flag is the hypervisor's default. A few sysfs reads (the device's
    /// name and the flag), for a caller that must know before anything else; <see langword="false"/> where they do not say.
    /// </summary>
    internal static bool CannotSpinLinux(ulong deviceId) =>
        BlockDeviceDirectory((uint)(deviceId >> 32), (uint)deviceId, source: null) is (string block, string name)
        && (BusOf(name) == StorageBus.Virtio || ReadInt(block, "queue/rotational") == 0);

    /// <summary>
    /// Whether the device that holds <paramref name="directory"/> may be a spinning disk: on Linux where sysfs does not
    /// say otherwise (<see cref="CannotSpinLinux"/>), and where the directory cannot be examined; elsewhere never.
    /// </summary>
    internal static bool MaySpin(string directory)
    {
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }

        try
        {
            return !CannotSpinLinux(FileStatus.Get(directory).DeviceId);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException)
        {
            return true;
        }
    }
}
