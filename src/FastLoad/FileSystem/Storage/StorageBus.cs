namespace FastLoad;

/// <summary>How a storage device is attached.</summary>
public enum StorageBus
{
    /// <summary>Not known; also Windows virtual disks, Storage Spaces and RAID volumes, and every local volume on macOS.</summary>
    Unknown = 0,

    /// <summary>NVMe.</summary>
    Nvme = 1,

    /// <summary>SCSI, SATA, SAS, ATA or USB mass storage (Linux <c>sd*</c>).</summary>
    Scsi = 2,

    /// <summary>A virtio block device of a virtual machine (Linux <c>vd*</c>).</summary>
    Virtio = 3,

    /// <summary>SD card or eMMC.</summary>
    Mmc = 4,

    /// <summary>A network file system (NFS, SMB/CIFS, 9p, ...).</summary>
    Network = 5,

    /// <summary>Memory-backed (tmpfs, ramfs, zram, brd; a Windows RAM disk; macOS devfs).</summary>
    Memory = 6,
}
