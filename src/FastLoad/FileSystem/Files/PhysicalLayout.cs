using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

/// <summary>Where files lie on the device, so that a spinning disk can read them in one sweep instead of seeking back and forth.</summary>
internal static partial class PhysicalLayout
{
    private const ulong Unknown = ulong.MaxValue;

    /// <summary>Whether the platform tells where a file lies (Linux FIEMAP, Windows retrieval pointers).</summary>
    public static bool IsSupported => OperatingSystem.IsLinux() || OperatingSystem.IsWindows();

    /// <summary>
    /// Where a file's first extent lies, a key that sorts in physical order within one device: the byte offset on
    /// Linux (FIEMAP), the logical cluster number on Windows (FSCTL_GET_RETRIEVAL_POINTERS); <see cref="ulong.MaxValue"/>
    /// where unknown.
    /// </summary>
    internal static ulong FirstExtentOffset(string path)
    {
        try
        {
            if (!IsSupported)
            {
                return Unknown;
            }

            // Windows: a synchronous handle, because the control code is sent without an OVERLAPPED (ReadableFile's are overlapped there).
            using SafeFileHandle handle = OperatingSystem.IsWindows()
                ? File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete)
                : ReadableFile.Open(path, out _);
            return OperatingSystem.IsWindows() ? FirstExtentWindows(handle) : FirstExtentLinux(handle);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return Unknown; // Reading reports the file's problem.
        }
    }
}
