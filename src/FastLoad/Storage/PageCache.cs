using System.Runtime.InteropServices;
using FastLoad.Internal;
using FastLoad.Reading;
using Microsoft.Win32.SafeHandles;

namespace FastLoad;

/// <summary>
/// Control over the operating system's cache of file contents, so that a measurement reads from the device
/// (a cold cache) rather than from memory. No root rights are needed.
/// </summary>
public static class PageCache
{
    /// <summary>Gets a value indicating whether <see cref="Evict"/> works on this platform (Linux: <c>posix_fadvise</c>).</summary>
    public static bool IsEvictionSupported => OperatingSystem.IsLinux();

    /// <summary>
    /// Writes a file's dirty pages back to the device (<c>fsync</c>) and drops its cached pages
    /// (<c>posix_fadvise(POSIX_FADV_DONTNEED)</c>), so that its next read comes from the device.
    /// </summary>
    /// <param name="path">The path of a regular file.</param>
    /// <exception cref="ArgumentException"><paramref name="path"/> is <see langword="null"/> or empty.</exception>
    /// <exception cref="PlatformNotSupportedException">The platform has no way to do it (see <see cref="IsEvictionSupported"/>).</exception>
    /// <exception cref="IOException">The file cannot be opened, is not a regular file, or the OS refused; the message names the file.</exception>
    /// <exception cref="UnauthorizedAccessException">The file cannot be opened for reading.</exception>
    public static void Evict(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        if (!IsEvictionSupported)
        {
            throw new PlatformNotSupportedException("Evicting a file from the page cache is supported on Linux only.");
        }

        using SafeFileHandle handle = ReadableFile.Open(path, out _);
        int fd = (int)handle.DangerousGetHandle();
        if (Interop.Fsync(fd) != 0)
        {
            throw NativeErrors.ForPath(Marshal.GetLastPInvokeError(), path, "flush");
        }

        int error = Interop.PosixFadvise(fd, 0, 0, Interop.FadviseDontNeed);
        if (error != 0)
        {
            throw NativeErrors.ForPath(error, path, "evict from the page cache");
        }
    }
}
