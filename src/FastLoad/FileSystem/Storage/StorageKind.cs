namespace FastLoad;

/// <summary>
/// What kind of storage a device is, as far as choosing a queue depth goes. A prior, not a verdict: the load corrects
/// it from measured throughput.
/// </summary>
public enum StorageKind
{
    /// <summary>
    /// Not known, or the device's own report is not to be trusted (a virtio disk, or a Windows virtual disk, Storage
    /// Space or RAID volume, reports rotational whatever backs it). Every local volume on macOS, which is not probed.
    /// </summary>
    Unknown = 0,

    /// <summary>A spinning disk: seeks dominate; small files are read in physical order through a deep window, large ones few at once.</summary>
    Rotational = 1,

    /// <summary>An SSD or NVMe device: a deep queue.</summary>
    SolidState = 2,

    /// <summary>A network file system: latency dominates; a deep queue hides it.</summary>
    Network = 3,

    /// <summary>Memory (tmpfs, zram, a Windows RAM disk, macOS devfs): no queue to fill; bounded by the cores.</summary>
    Memory = 4,
}
