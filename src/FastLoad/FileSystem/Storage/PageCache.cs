using System.Runtime.InteropServices;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad;

/// <summary>
/// Control over the operating system's cache of file contents, so that a measurement reads from the device
/// (a cold cache) rather than from memory. No root rights are needed.
/// </summary>
public static unsafe class PageCache
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

    /// <summary>Gets how many bytes of a file are in the page cache now (Linux <c>mincore</c> over a mapping of the file).</summary>
    /// <param name="path">The path of a regular file.</param>
    /// <returns>The resident bytes, in whole pages (so up to one page more than the file's length).</returns>
    /// <exception cref="ArgumentException"><paramref name="path"/> is <see langword="null"/> or empty.</exception>
    /// <exception cref="PlatformNotSupportedException">Not Linux.</exception>
    /// <exception cref="IOException">The file cannot be opened or mapped; the message names it.</exception>
    /// <exception cref="UnauthorizedAccessException">The file cannot be opened for reading.</exception>
    public static long GetResidentBytes(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        if (!IsEvictionSupported)
        {
            throw new PlatformNotSupportedException("Page-cache residency is supported on Linux only.");
        }

        using SafeFileHandle handle = ReadableFile.Open(path, out long length);
        if (length == 0)
        {
            return 0;
        }

        void* mapping = Interop.Mmap(null, (nuint)length, Interop.ProtRead, Interop.MapShared, (int)handle.DangerousGetHandle(), 0);
        if (mapping == (void*)-1)
        {
            throw NativeErrors.ForPath(Marshal.GetLastPInvokeError(), path, "map");
        }

        try
        {
            long pageSize = Environment.SystemPageSize;
            long pages = (length + pageSize - 1) / pageSize;
            byte[] vector = new byte[pages];
            fixed (byte* flags = vector)
            {
                if (Interop.Mincore(mapping, (nuint)length, flags) != 0)
                {
                    throw NativeErrors.ForPath(Marshal.GetLastPInvokeError(), path, "query the page cache for");
                }
            }

            long resident = 0;
            foreach (byte flag in vector)
            {
                resident += flag & 1;
            }

            return resident * pageSize;
        }
        finally
        {
            Interop.Munmap(mapping, (nuint)length);
        }
    }
}
