using System.Runtime.InteropServices;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Packing;

/// <summary>
/// Linux: every step is taken relative to an open folder handle, as libarchive's secure extraction does. A folder
/// checked once cannot be swapped for a link before it is used, because it is never looked up by path again.
/// </summary>
internal static partial class PackExtraction
{
    private const int FolderMode = 0x1FF; // 0777, less the umask
    private const int FileMode = 0x1B6;   // 0666, less the umask
    private const int SymbolicLinkMode = 0xA000;

    /// <summary>
    /// Creates the entry's file under <paramref name="root"/>: each folder opened with O_DIRECTORY|O_NOFOLLOW from the
    /// one before (created where missing), the file with O_CREAT|O_EXCL|O_NOFOLLOW in the last. A symbolic link or a
    /// non-folder on the way, or a link or folder in the file's place, is refused; a regular file there is replaced.
    /// </summary>
    public static SafeFileHandle CreateTargetLinux(string root, string name, Dictionary<string, string> extracted)
    {
        int folderFlags = Interop.OpenReadOnly | Interop.OpenDirectory | Interop.OpenCloseOnExec;
        SafeFileHandle folder = OpenAt(Interop.AtFdCwd, root, folderFlags, root, name, root);
        try
        {
            string[] segments = name.Split('/');
            string current = root;
            for (int i = 0; i < segments.Length - 1; i++)
            {
                current = Path.Combine(current, segments[i]);
                int parent = (int)folder.DangerousGetHandle();
                if (Interop.MakeDirectoryAt(parent, segments[i], FolderMode) != 0 && Marshal.GetLastPInvokeError() != Interop.EEXIST)
                {
                    throw NativeErrors.ForPath(Marshal.GetLastPInvokeError(), current, "create the folder");
                }

                SafeFileHandle next = OpenAt(parent, segments[i], folderFlags | Interop.OpenNoFollow, current, name, root);
                folder.Dispose();
                folder = next;
            }

            string target = Path.Combine(current, segments[^1]);
            return CreateFileAt(folder, segments[^1], target, name, root, extracted);
        }
        finally
        {
            folder.Dispose();
        }
    }

    private static SafeFileHandle CreateFileAt(
        SafeFileHandle folder, string leaf, string target, string name, string root, Dictionary<string, string> extracted)
    {
        int fd = (int)folder.DangerousGetHandle();
        int flags = Interop.OpenWriteOnly | Interop.OpenCreate | Interop.OpenExclusive | Interop.OpenNoFollow | Interop.OpenCloseOnExec;
        for (int attempt = 0; ; attempt++)
        {
            int created = Interop.OpenAt(fd, leaf, flags, FileMode);
            if (created >= 0)
            {
                extracted[target] = name;
                return new SafeFileHandle(created, ownsHandle: true);
            }

            int errno = Marshal.GetLastPInvokeError();
            if (errno != Interop.EEXIST || attempt > 0)
            {
                throw errno == Interop.EEXIST
                    ? new IOException($"The entry '{name}' is not written: '{target}' appeared again while it was being replaced.")
                    : NativeErrors.ForPath(errno, target, "create");
            }

            // Something is there: replace it only if it is a regular file, looked at without following a link.
            if (Interop.StatxPath(fd, leaf, Interop.AtSymlinkNoFollow, Interop.StatxBasicStats, out Interop.Statx status) != 0)
            {
                throw NativeErrors.ForPath(Marshal.GetLastPInvokeError(), target, "get the status of");
            }

            switch (FileStatus.KindFromMode(status.Mode))
            {
                case FileKind.Regular:
                    break;
                case FileKind.Directory:
                    throw new IOException($"The entry '{name}' is not written: '{target}' is a folder.");
                default:
                    throw new IOException(
                        $"The entry '{name}' is not written: '{target}' is a symbolic link or special file, which could lead outside '{root}'.");
            }

            CheckCaseClash(target, name, extracted);
            if (Interop.UnlinkAt(fd, leaf, 0) != 0)
            {
                throw NativeErrors.ForPath(Marshal.GetLastPInvokeError(), target, "replace");
            }
        }
    }

    private static SafeFileHandle OpenAt(int folder, string path, int flags, string fullPath, string name, string root)
    {
        int fd;
        int errno;
        do
        {
            fd = Interop.OpenAt(folder, path, flags, 0);
            errno = fd < 0 ? Marshal.GetLastPInvokeError() : 0;
        }
        while (errno == Interop.EINTR);

        if (fd >= 0)
        {
            return new SafeFileHandle(fd, ownsHandle: true);
        }

        // O_DIRECTORY|O_NOFOLLOW refuses a link with ELOOP or ENOTDIR: tell the two apart for the message.
        if (errno is Interop.ELOOP or Interop.ENOTDIR)
        {
            bool link = Interop.StatxPath(folder, path, Interop.AtSymlinkNoFollow, Interop.StatxBasicStats, out Interop.Statx status) != 0
                || (status.Mode & 0xF000) == SymbolicLinkMode;
            throw new IOException(link
                ? $"The entry '{name}' is not written: '{fullPath}' is a symbolic link, which could lead outside '{root}'."
                : $"The entry '{name}' is not written: '{fullPath}' is a file, not a folder.");
        }

        throw NativeErrors.ForPath(errno, fullPath, "open the folder");
    }
}
