namespace FastLoad;

/// <summary>The storage device that holds a path, as the operating system describes it.</summary>
public sealed class StorageDevice
{
    internal StorageDevice(
        string deviceId, string name, StorageKind kind, StorageBus bus, bool? isRotational, int? queueSize, string? model, string? fileSystem,
        string? unreported = null)
    {
        Unreported = unreported;
        DeviceId = deviceId;
        Name = name;
        Kind = kind;
        Bus = bus;
        IsRotational = isRotational;
        QueueSize = queueSize;
        Model = model;
        FileSystem = fileSystem;
    }

    /// <summary>A device nothing is known about.</summary>
    internal static StorageDevice Unknown { get; } = new(string.Empty, "unknown", StorageKind.Unknown, StorageBus.Unknown, null, null, null, null);

    /// <summary>
    /// Gets the device number of the file system, <c>major:minor</c> on Linux and macOS (macOS: of the file system id);
    /// the volume serial number in hexadecimal on Windows; empty where unknown.
    /// </summary>
    public string DeviceId { get; }

    /// <summary>
    /// Gets the block device's name (<c>nvme0n1</c>, <c>sda</c>, <c>vda</c>; macOS <c>disk3s1</c>), or the file
    /// system's source where there is no block device; on Windows the volume (<c>C:</c>, <c>\\server\share</c>).
    /// </summary>
    public string Name { get; }

    /// <summary>Gets the kind of storage used as the prior for the queue depth.</summary>
    public StorageKind Kind { get; }

    /// <summary>Gets how the device is attached.</summary>
    public StorageBus Bus { get; }

    /// <summary>
    /// Gets what the device reports as rotational (Linux <c>queue/rotational</c>; Windows: it incurs a seek penalty),
    /// or <see langword="null"/> where it reports nothing (macOS). Virtio and other virtual disks, Storage Spaces and
    /// RAID controllers often report <see langword="true"/> for SSDs.
    /// </summary>
    public bool? IsRotational { get; }

    /// <summary>Gets the device's request queue size (Linux <c>queue/nr_requests</c>), or <see langword="null"/> (always on Windows and macOS).</summary>
    public int? QueueSize { get; }

    /// <summary>The kernel's read-ahead window for the device (Linux <c>queue/read_ahead_kb</c>), or <see langword="null"/>.</summary>
    internal int? ReadAheadKilobytes { get; init; }

    /// <summary>The largest request the kernel sends the device (Linux <c>queue/max_sectors_kb</c>), or <see langword="null"/>.</summary>
    internal int? MaxRequestKilobytes { get; init; }

    /// <summary>Gets the device's model string (Windows: vendor and product id), or <see langword="null"/> (always on macOS).</summary>
    public string? Model { get; }

    /// <summary>Gets the file system type (<c>ext4</c>, <c>xfs</c>, <c>nfs4</c>, <c>NTFS</c>, <c>apfs</c>, ...), or <see langword="null"/>.</summary>
    public string? FileSystem { get; }

    /// <summary>What the system would not tell and why (a query that failed, with its error), shown after the kind; <see langword="null"/> when every query answered.</summary>
    internal string? Unreported { get; }

    /// <inheritdoc />
    public override string ToString()
    {
        string rotational = IsRotational switch { true => "rotational=1", false => "rotational=0", null => "rotational=?" };
        string model = Model is null ? string.Empty : $", {Model}";
        string queue = QueueSize is null ? string.Empty : $", queue {QueueSize}";
        string unreported = Unreported is null ? string.Empty : $" ({Unreported})";
        return $"{Name} ({DeviceId}, {Bus}, {rotational}{queue}{model}, {FileSystem ?? "?"}) -> {Kind}{unreported}";
    }
}
