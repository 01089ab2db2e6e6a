using System.Runtime.Versioning;

namespace FastLoad.FileSystem;

/// <summary>The volume that holds a path, as Windows names it: for the storage probe and for grouping files by volume.</summary>
[SupportedOSPlatform("windows")]
internal static unsafe class WindowsVolume
{
    // MAX_PATH + 1: the longest file system name GetVolumeInformationW returns.
    private const int FileSystemNameCapacity = 261;

    // "\\?\Volume{GUID}\" is 49 characters; the documentation suggests a buffer of 50.
    private const int VolumeGuidPathCapacity = 64;

    /// <summary>
    /// The root of the volume that holds <paramref name="path"/>, with a trailing backslash (<c>C:\</c>, a mounted
    /// folder <c>C:\mnt\disk2\</c>, <c>\\server\share\</c>), or <see langword="null"/> where Windows cannot say.
    /// </summary>
    public static string? RootOf(string path)
    {
        // A root is a prefix of the path, or a volume GUID path where a link leads to a volume without a letter.
        int capacity = Math.Max(path.Length, 260) + VolumeGuidPathCapacity;
        char[] buffer = new char[capacity];
        fixed (char* root = buffer)
        {
            return Interop.GetVolumePathName(path, root, (uint)capacity) ? new string(root) : null;
        }
    }

    /// <summary>The volume's serial number and file system name (<c>NTFS</c>, <c>ReFS</c>, ...) for a root from <see cref="RootOf"/>.</summary>
    public static bool TryGetInformation(string root, out uint serialNumber, out string? fileSystem)
    {
        char* name = stackalloc char[FileSystemNameCapacity];
        uint serial;
        if (!Interop.GetVolumeInformation(root, null, 0, &serial, null, null, name, FileSystemNameCapacity))
        {
            serialNumber = 0;
            fileSystem = null;
            return false;
        }

        serialNumber = serial;
        fileSystem = new string(name);
        return true;
    }

    /// <summary>The volume GUID path (<c>\\?\Volume{...}\</c>) mounted at a root, or <see langword="null"/> (network shares have none).</summary>
    public static string? GuidPathOf(string root)
    {
        char* name = stackalloc char[VolumeGuidPathCapacity];
        return Interop.GetVolumeNameForVolumeMountPoint(root, name, VolumeGuidPathCapacity) ? new string(name) : null;
    }
}
