using System.Runtime.InteropServices;
using System.Text;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

internal static partial class ReadableFile
{
    // O_NONBLOCK: a path that became a FIFO after planning opens at once instead of waiting for a writer
    // (it has no effect on reads of regular files). O_NOCTTY: a terminal never becomes our controlling one.
    internal const int ReadFlags = Interop.OpenReadOnly | Interop.OpenCloseOnExec | Interop.OpenNonBlocking | Interop.OpenNoControllingTerminal;

    private static SafeFileHandle OpenLinux(string path, out long length) => OpenRegular(path, ReadFlags, FileStatus.GetLinux, out length);

    /// <summary>
    /// Opens without blocking (by its name in <paramref name="folder"/> when that is a folder's descriptor) and refuses,
    /// after the open, anything that is not a regular file.
    /// </summary>
    private static SafeFileHandle OpenRegular(string path, int flags, Func<int, string, FileStatus> statOpenFile, out long length, int folder = -1) =>
        TryOpenRegular(path, flags, statOpenFile, folder, out length, out Exception? failure) ?? throw failure!;

    /// <summary>
    /// As <see cref="OpenRegular"/>, but where the file cannot be opened or is not a regular file, <see langword="null"/>
    /// and the exception that names the path and the cause, made rather than thrown.
    /// </summary>
    private static SafeFileHandle? TryOpenRegular(
        string path, int flags, Func<int, string, FileStatus> statOpenFile, int folder, out long length, out Exception? failure)
    {
        length = 0;
        SafeFileHandle? handle = TryOpenNative(path, flags, out int errno, folder);
        if (handle is null)
        {
            failure = NativeErrors.ForPath(errno, path, "open");
            return null;
        }

        FileStatus status;
        try
        {
            status = statOpenFile((int)handle.DangerousGetHandle(), path);
        }
        catch
        {
            handle.Dispose();
            throw;
        }

        if (status.Kind != FileKind.Regular)
        {
            handle.Dispose();
            failure = NotRegularFile(path, status.Kind);
            return null;
        }

        length = status.Length;
        failure = null;
        return handle;
    }

    /// <summary>open(2), retried when interrupted; the error names the path.</summary>
    internal static SafeFileHandle OpenNative(string path, int flags) =>
        TryOpenNative(path, flags, out int errno) ?? throw NativeErrors.ForPath(errno, path, "open");

    /// <summary>
    /// open(2), or openat(2) of the path's last name in <paramref name="folder"/> when that is a folder's descriptor,
    /// retried when interrupted; <see langword="null"/> and the errno where it fails, for a caller that tells failures
    /// apart without exceptions.
    /// </summary>
    internal static SafeFileHandle? TryOpenNative(string path, int flags, out int errno, int folder = -1)
    {
        string name = path[OpenFolders.NameStart(path, folder)..];
        int fd;
        do
        {
            fd = folder < 0 ? Interop.Open(path, flags, 0) : Interop.OpenAt(folder, name, flags, 0);
            errno = fd < 0 ? Marshal.GetLastPInvokeError() : 0;
        }
        while (errno == Interop.EINTR);

        return fd < 0 ? null : new SafeFileHandle(fd, ownsHandle: true);
    }

    /// <summary>
    /// Opens <paramref name="path"/> as <see cref="TryOpenNative"/> does where every name on its way is in the kernel's
    /// lookup cache (openat2 with RESOLVE_CACHED, Linux 5.12), without reading the disk: <paramref name="namesCached"/>
    /// is <see langword="false"/>, and nothing opened, where one is not. Older kernels open it the usual way.
    /// </summary>
    internal static unsafe SafeFileHandle? TryOpenIfNamesCached(string path, int folder, out bool namesCached)
    {
        namesCached = true;
        string name = path[OpenFolders.NameStart(path, folder)..];
        byte[] utf8 = new byte[Encoding.UTF8.GetByteCount(name) + 1];
        Encoding.UTF8.GetBytes(name, utf8);
        var how = new Interop.OpenHow { Flags = (ulong)ReadFlags, Resolve = Interop.ResolveCached };
        int fd, errno;
        fixed (byte* bytes = utf8)
        {
            do
            {
                fd = Interop.OpenAt2(folder < 0 ? Interop.AtFdCwd : folder, bytes, &how);
                errno = fd < 0 ? Marshal.GetLastPInvokeError() : 0;
            }
            while (errno == Interop.EINTR);
        }

        if (errno == Interop.EAGAIN)
        {
            namesCached = false;
            return null;
        }

        // ENOSYS (before 5.6), EINVAL (RESOLVE_CACHED is newer than the kernel), EPERM (a seccomp profile that does not know openat2).
        return fd >= 0 ? new SafeFileHandle(fd, ownsHandle: true)
            : errno is Interop.ENOSYS or Interop.EINVAL or Interop.EPERM ? TryOpenNative(path, ReadFlags, out _, folder)
            : null;
    }

    /// <summary>
    /// A second open file description of the file <paramref name="handle"/> refers to, with its own readahead state,
    /// through <c>/proc/self/fd</c>: the same inode even if the path was replaced meanwhile. <see langword="null"/>
    /// where that is not possible (no /proc), so that the caller shares the first one.
    /// </summary>
    internal static SafeFileHandle? TryReopenLinux(SafeFileHandle handle)
    {
        string self = $"/proc/self/fd/{(int)handle.DangerousGetHandle()}";
        int fd;
        do
        {
            fd = Interop.Open(self, ReadFlags, 0);
        }
        while (fd < 0 && Marshal.GetLastPInvokeError() == Interop.EINTR);

        return fd < 0 ? null : new SafeFileHandle(fd, ownsHandle: true);
    }

    // The reference keeps the descriptor from being closed, and its number reused, during the call (a closed handle
    // throws ObjectDisposedException).
    private static void AdviseWillNeedLinux(SafeFileHandle handle, long offset, long length)
    {
        bool added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            _ = Interop.PosixFadvise((int)handle.DangerousGetHandle(), offset, length, Interop.FadviseWillNeed);
        }
        finally
        {
            if (added)
            {
                handle.DangerousRelease();
            }
        }
    }
}
