namespace FastLoad.FileSystem;

/// <summary>What planning needs to know of a file: its kind, size and the device it lives on.</summary>
internal readonly partial record struct FileStatus(FileKind Kind, long Length, ulong DeviceId)
{
    /// <summary>Describes <paramref name="path"/>, following symbolic links; throws an exception naming the path when it cannot.</summary>
    public static FileStatus Get(string path)
    {
        if (OperatingSystem.IsLinux())
        {
            return GetLinux(path);
        }

        if (OperatingSystem.IsMacOS())
        {
            return GetOSX(path);
        }

        return OperatingSystem.IsWindows() ? GetWindows(path) : GetPortable(path);
    }

    /// <summary>
    /// Describes <paramref name="path"/> as <see cref="Get"/> does, or says it cannot: without an exception on Linux,
    /// for a caller that only samples files (a missing one is reported when it is read).
    /// </summary>
    public static bool TryGet(string path, out FileStatus status)
    {
        if (OperatingSystem.IsLinux())
        {
            return TryGetLinux(path, out status);
        }

        try
        {
            status = Get(path);
            return true;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            status = default;
            return false;
        }
    }

    /// <summary>The id of the device <paramref name="directory"/> lies on; 0 where unknown (or where it cannot be examined).</summary>
    public static ulong DeviceOfDirectory(string directory)
    {
        try
        {
            return OperatingSystem.IsWindows() ? VolumeIdOfDirectory(directory) : Get(directory).DeviceId;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            return 0;
        }
    }

    // Other platforms: FileSystemInfo tells files from directories only (it never reports FIFOs or devices on Unix).
    // No device id here: every file in one lane.
    private static FileStatus GetPortable(string path)
    {
        var info = new FileInfo(path);
        if (!info.Exists)
        {
            if (Directory.Exists(path))
            {
                return new FileStatus(FileKind.Directory, 0, 0);
            }

            throw new FileNotFoundException($"Could not find file '{path}'.", path);
        }

        return new FileStatus(FileKind.Regular, info.Length, 0);
    }

    internal static string Describe(FileKind kind) => kind switch
    {
        FileKind.Directory => "a directory",
        FileKind.Fifo => "a FIFO (named pipe)",
        FileKind.CharacterDevice => "a character device",
        FileKind.BlockDevice => "a block device",
        FileKind.Socket => "a socket",
        _ => "not a regular file",
    };

    /// <summary>The kind of file that a stat mode says (its S_IFMT bits, the same values on Linux and macOS).</summary>
    internal static FileKind KindFromMode(uint mode) => (mode & 0xF000) switch
    {
        0x8000 => FileKind.Regular,
        0x4000 => FileKind.Directory,
        0x1000 => FileKind.Fifo,
        0x2000 => FileKind.CharacterDevice,
        0x6000 => FileKind.BlockDevice,
        0xC000 => FileKind.Socket,
        _ => FileKind.Unknown,
    };
}
