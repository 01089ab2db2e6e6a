using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Shared;

/// <summary>
/// Control over the operating system's cache of file contents, so that a measurement reads from the device
/// (a cold cache) rather than from memory. No root rights are needed. A helper of the tool, the benchmarks and the
/// tests, which compile it in: the library itself never evicts anything.
/// </summary>
internal static unsafe partial class PageCache
{
    private const int OpenReadOnly = 0x0;
    private const int OpenNoControllingTerminal = 0x100;
    private const int OpenNonBlocking = 0x800;
    private const int OpenCloseOnExec = 0x80000;
    private const int AtEmptyPath = 0x1000;
    private const uint StatxBasicStats = 0x7ff;
    private const int FadviseDontNeed = 4;
    private const int ProtRead = 1;
    private const int MapShared = 1;

    private const int EPERM = 1;
    private const int ENOENT = 2;
    private const int EINTR = 4;
    private const int EACCES = 13;
    private const int ENOTDIR = 20;

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

        using SafeFileHandle handle = OpenRegularFile(path, out _);
        int fd = (int)handle.DangerousGetHandle();
        if (Fsync(fd) != 0)
        {
            throw ForPath(Marshal.GetLastPInvokeError(), path, "flush");
        }

        int error = PosixFadvise(fd, 0, 0, FadviseDontNeed);
        if (error != 0)
        {
            throw ForPath(error, path, "evict from the page cache");
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

        using SafeFileHandle handle = OpenRegularFile(path, out long length);
        if (length == 0)
        {
            return 0;
        }

        void* mapping = Mmap(null, (nuint)length, ProtRead, MapShared, (int)handle.DangerousGetHandle(), 0);
        if (mapping == (void*)-1)
        {
            throw ForPath(Marshal.GetLastPInvokeError(), path, "map");
        }

        try
        {
            long pageSize = Environment.SystemPageSize;
            long pages = (length + pageSize - 1) / pageSize;
            byte[] vector = new byte[pages];
            fixed (byte* flags = vector)
            {
                if (Mincore(mapping, (nuint)length, flags) != 0)
                {
                    throw ForPath(Marshal.GetLastPInvokeError(), path, "query the page cache for");
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
            _ = Munmap(mapping, (nuint)length);
        }
    }

    /// <summary>
    /// Opens without blocking (a FIFO opens at once) and refuses, after the open, anything that is not a regular file;
    /// returns the length it has then.
    /// </summary>
    private static SafeFileHandle OpenRegularFile(string path, out long length)
    {
        int fd;
        int errno;
        do
        {
            fd = Open(path, OpenReadOnly | OpenCloseOnExec | OpenNonBlocking | OpenNoControllingTerminal, 0);
            errno = fd < 0 ? Marshal.GetLastPInvokeError() : 0;
        }
        while (errno == EINTR);

        if (fd < 0)
        {
            throw ForPath(errno, path, "open");
        }

        var handle = new SafeFileHandle(fd, ownsHandle: true);
        byte emptyPath = 0;
        if (Statx(fd, &emptyPath, AtEmptyPath, StatxBasicStats, out StatxBuffer status) != 0)
        {
            int error = Marshal.GetLastPInvokeError();
            handle.Dispose();
            throw ForPath(error, path, "get the status of");
        }

        string? notRegular = (status.Mode & 0xF000) switch
        {
            0x8000 => null,
            0x1000 => "a FIFO (named pipe)",
            0x4000 => "a directory",
            0x2000 or 0x6000 => "a device",
            0xC000 => "a socket",
            _ => "not a regular file",
        };
        if (notRegular is not null)
        {
            handle.Dispose();
            throw new IOException($"'{path}' is {notRegular}, not a regular file; only regular files have pages to evict.");
        }

        length = (long)status.Size;
        return handle;
    }

    /// <summary>The exception .NET itself would throw for <paramref name="errno"/>, naming the path.</summary>
    private static Exception ForPath(int errno, string path, string action)
    {
        string message = $"Could not {action} '{path}': {Marshal.GetPInvokeErrorMessage(errno)}";
        return errno switch
        {
            ENOENT or ENOTDIR => new FileNotFoundException(message, path),
            EACCES or EPERM => new UnauthorizedAccessException(message),
            _ => new IOException(message, errno),
        };
    }

    /// <summary>The leading part of <c>struct statx</c>, the same on every Linux architecture.</summary>
    [StructLayout(LayoutKind.Explicit, Size = 256)]
    private struct StatxBuffer
    {
        [FieldOffset(28)] public ushort Mode;
        [FieldOffset(40)] public ulong Size;
    }

    // open(2) is variadic; with integer arguments only, the x64 and arm64 Linux calling conventions match a fixed signature.
    [LibraryImport("libc", EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Open(string path, int flags, int mode);

    [LibraryImport("libc", EntryPoint = "statx", SetLastError = true)]
    private static partial int Statx(int fd, byte* emptyPath, int flags, uint mask, out StatxBuffer buffer);

    [LibraryImport("libc", EntryPoint = "fsync", SetLastError = true)]
    private static partial int Fsync(int fd);

    /// <summary>Returns 0 or an errno value (posix_fadvise does not set errno).</summary>
    [LibraryImport("libc", EntryPoint = "posix_fadvise")]
    private static partial int PosixFadvise(int fd, long offset, long length, int advice);

    [LibraryImport("libc", EntryPoint = "mmap", SetLastError = true)]
    private static partial void* Mmap(void* address, nuint length, int protection, int flags, int fd, long offset);

    [LibraryImport("libc", EntryPoint = "mincore", SetLastError = true)]
    private static partial int Mincore(void* address, nuint length, byte* vector);

    [LibraryImport("libc", EntryPoint = "munmap", SetLastError = true)]
    private static partial int Munmap(void* address, nuint length);
}
