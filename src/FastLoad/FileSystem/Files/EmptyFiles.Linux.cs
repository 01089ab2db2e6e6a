namespace FastLoad.FileSystem;

/// <summary>
/// Tells a regular file that reports no bytes and has none from a pseudo file (<c>/proc</c>, <c>/sys</c>, debugfs) that
/// reports none and has content, without reading it: a read would cost an empty file a hand-over to a reader thread,
/// and could take bytes from a file whose reads consume them.
/// </summary>
internal static class EmptyFiles
{
    // statfs(2) magic numbers of the file systems without a block device of their own whose files report their length.
    private const long TmpfsMagic = 0x01021994, RamfsMagic = 0x858458F6, OverlayfsMagic = 0x794C7630, BtrfsMagic = 0x9123683E,
        NfsMagic = 0x6969, Smb2Magic = 0xFE534D42, CifsMagic = 0xFF534D42, ZfsMagic = 0x2FC12FC1, V9fsMagic = 0x01021997;

    /// <summary>
    /// Whether the regular file open as <paramref name="fd"/>, on <paramref name="deviceId"/>, that reports a length of 0
    /// holds no bytes: its file system reports every file's true length. Any file system on a block device does (ext4,
    /// XFS, ...); of those without one, tmpfs, overlayfs (containers), btrfs, NFS, SMB, ZFS and 9p do, asked with one
    /// <c>fstatfs</c>; anything else (the pseudo file systems, FUSE) may not, and is read to its end.
    /// </summary>
    public static unsafe bool IsEmptyLinux(int fd, ulong deviceId)
    {
        if (deviceId >> 32 != 0)
        {
            return true;
        }

        Interop.FileSystemStatus status;
        if (Interop.FileSystemStatusOf(fd, &status) != 0)
        {
            return false;
        }

        return status.Type is TmpfsMagic or RamfsMagic or OverlayfsMagic or BtrfsMagic or NfsMagic or Smb2Magic or CifsMagic or ZfsMagic or V9fsMagic;
    }
}
