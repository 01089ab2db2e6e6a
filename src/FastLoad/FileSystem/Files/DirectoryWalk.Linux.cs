using System.Diagnostics;
using System.IO.Enumeration;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;

namespace FastLoad.FileSystem;

internal static unsafe partial class DirectoryWalk
{
    // Room for a few hundred entries a call; a larger folder takes several.
    private const int EntryBufferSize = 32 * 1024;

    // A folder whose open and listing calls took longer than this in all waited for the device, unless its thread spent
    // that long waiting for a CPU (WaitedForACpu).
    private static readonly long DeviceWaitTicks = Stopwatch.Frequency / 2000;

    /// <summary>
    /// Whether a folder whose system calls took <paramref name="systemCallTicks"/>, over <see cref="DeviceWaitTicks"/>,
    /// spent the time over it waiting for a CPU rather than for the device: another process held the CPU (a busy
    /// machine), which more walkers would not help. The wait is the thread's run-queue time since the walker last looked
    /// (<paramref name="runQueueWaitBefore"/>, <paramref name="runQueueWaitNow"/>: nanoseconds, -1 where unknown), so it
    /// may include a wait outside the calls, which only delays the walkers to the next slow folder.
    /// </summary>
    internal static bool WaitedForACpu(long runQueueWaitBefore, long runQueueWaitNow, long systemCallTicks)
    {
        if (runQueueWaitBefore < 0 || runQueueWaitNow < runQueueWaitBefore)
        {
            return false;
        }

        double waitedTicks = (runQueueWaitNow - runQueueWaitBefore) * (Stopwatch.Frequency / 1e9);
        return waitedTicks >= systemCallTicks - DeviceWaitTicks;
    }

    /// <summary>
    /// A walk that reads folders with getdents64, opens each by its whole path as bytes (a name need not be UTF-8), and
    /// keeps the descriptors of folders with files for a load (<see cref="OpenFolders"/>). A folder waited for the
    /// device when its open and listing calls took over <see cref="DeviceWaitTicks"/>, unless its thread spent that
    /// time waiting for a CPU (<see cref="WaitedForACpu"/>).
    /// </summary>
    [SupportedOSPlatform("linux")]
    private sealed class GetdentsWalk(
        string pattern, bool recursive, bool walkersFromTheStart, DirectoryWalkObserver? observer, OpenFolders? openFolders)
        : FolderWalk(walkersFromTheStart, observer, openFolders)
    {
        private readonly bool _matchAll = pattern == "*";

        protected override Folder CreateRoot(string root)
        {
            byte[] nativeRoot = new byte[Encoding.UTF8.GetByteCount(root) + 1];
            Encoding.UTF8.GetBytes(root, nativeRoot);
            return new Folder(root, nativeRoot, isRoot: true);
        }

        protected override FolderReader CreateReader() => new Reader(this);

        private sealed class Reader(GetdentsWalk walk) : FolderReader
        {
            private readonly byte* _entries = (byte*)NativeMemory.Alloc(EntryBufferSize);

            // Names of up to 255 bytes decode to at most 255 characters.
            private readonly char[] _name = new char[256];
            private long _runQueueWait = ThreadSchedule.RunQueueWaitNanoseconds();

            public override bool Read(Folder folder)
            {
                long systemCallTicks = 0;
                walk.Read(folder, _entries, _name, ref systemCallTicks);
                if (systemCallTicks <= DeviceWaitTicks)
                {
                    return false;
                }

                long runQueueWaitNow = ThreadSchedule.RunQueueWaitNanoseconds();
                bool waitedForACpu = WaitedForACpu(_runQueueWait, runQueueWaitNow, systemCallTicks);
                _runQueueWait = runQueueWaitNow;
                return !waitedForACpu;
            }

            public override void Dispose() => NativeMemory.Free(_entries);
        }

        /// <summary>
        /// Lists <paramref name="folder"/>; adds the time its system calls took to <paramref name="systemCallTicks"/>.
        /// Only those calls can wait for the device: the names' decoding around them, and a collection or a page fault
        /// of the memory they go to, take as long warm as cold.
        /// </summary>
        private void Read(Folder folder, byte* entries, Span<char> name, ref long systemCallTicks)
        {
            List<string> found = folder.Files;
            List<Folder> subfolders = folder.Subfolders;
            long started = Stopwatch.GetTimestamp();
            int fd = Open(folder);
            systemCallTicks += Stopwatch.GetTimestamp() - started;
            if (fd < 0)
            {
                return;
            }

            try
            {
                while (true)
                {
                    started = Stopwatch.GetTimestamp();
                    int filled = Interop.GetDirectoryEntries(fd, entries, EntryBufferSize);
                    systemCallTicks += Stopwatch.GetTimestamp() - started;
                    if (filled == 0)
                    {
                        return;
                    }

                    if (filled < 0)
                    {
                        int errno = Marshal.GetLastPInvokeError();
                        if (errno == Interop.EINTR)
                        {
                            continue;
                        }

                        throw NativeErrors.ForPath(errno, folder.Path, "read the folder");
                    }

                    for (int offset = 0; offset < filled;)
                    {
                        byte* entry = entries + offset;
                        int recordLength = *(ushort*)(entry + Interop.DirentRecordLengthOffset);
                        offset += recordLength;
                        var nameBytes = new ReadOnlySpan<byte>(entry + Interop.DirentNameOffset, recordLength - Interop.DirentNameOffset);
                        nameBytes = nameBytes[..nameBytes.IndexOf((byte)0)];
                        if (nameBytes.SequenceEqual("."u8) || nameBytes.SequenceEqual(".."u8))
                        {
                            continue;
                        }

                        byte type = entry[Interop.DirentTypeOffset];
                        if (type is Interop.DirentUnknown or Interop.DirentSymbolicLink)
                        {
                            type = TypeAt(fd, entry + Interop.DirentNameOffset, type);
                        }

                        // Names of up to 255 bytes decode to at most 255 characters.
                        int length = Encoding.UTF8.GetChars(nameBytes, name);
                        if (type == Interop.DirentDirectory)
                        {
                            if (recursive)
                            {
                                subfolders.Add(new Folder(folder.PathOf(name[..length]), Append(folder.NativePath!, nameBytes), isRoot: false));
                            }

                            continue;
                        }

                        if (type == FolderBehindLink)
                        {
                            continue;
                        }

                        if (_matchAll || FileSystemName.MatchesSimpleExpression(pattern, name[..length], ignoreCase: false))
                        {
                            found.Add(folder.PathOf(name[..length]));
                        }
                    }
                }
            }
            finally
            {
                // A folder with files is kept open for the load to open them by their names (OpenFolders).
                if (found.Count > 0 && OpenFolders is not null)
                {
                    folder.OpenSlot = OpenFolders.TryKeep(fd);
                }

                if (folder.OpenSlot < 0)
                {
                    Interop.Close(fd);
                }
            }
        }

        /// <summary>Opens a folder to read; -1 for a subfolder that vanished, or was replaced, since its parent was read.</summary>
        private static int Open(Folder folder)
        {
            int fd;
            fixed (byte* path = folder.NativePath)
            {
                // O_NOFOLLOW below the root: a folder replaced by a link since it was listed is not followed.
                int flags = Interop.OpenReadOnly | Interop.OpenDirectory | Interop.OpenCloseOnExec | (folder.IsRoot ? 0 : Interop.OpenNoFollow);
                do
                {
                    fd = Interop.OpenBytes(path, flags, 0);
                }
                while (fd < 0 && Marshal.GetLastPInvokeError() == Interop.EINTR);
            }

            if (fd >= 0)
            {
                return fd;
            }

            int errno = Marshal.GetLastPInvokeError();
            if (errno is Interop.ENOENT or Interop.ENOTDIR or Interop.ELOOP)
            {
                // .NET's enumeration skips such a subfolder too; the root is the caller's mistake.
                return folder.IsRoot ? throw new DirectoryNotFoundException($"Could not find a part of the path '{folder.Path}'.") : -1;
            }

            throw NativeErrors.ForPath(errno, folder.Path, "read the folder");
        }
    }

    // Not a d_type value: what TypeAt answers for a link to a folder, which is neither followed nor listed.
    private const byte FolderBehindLink = 0xFF;

    /// <summary>
    /// The type of an entry the folder's listing did not give (some file systems) or that is a link: a link to a folder
    /// is <see cref="FolderBehindLink"/>; a link to anything else, or to nothing, is listed as a file, as .NET lists it.
    /// </summary>
    private static byte TypeAt(int folderFd, byte* name, byte listedType)
    {
        // The entry itself first, where the listing did not say: a folder is walked; what is neither a folder nor a
        // kind FileStatus knows (a link, or nothing any more) is looked at through links below.
        if (listedType == Interop.DirentUnknown && KindAt(folderFd, name, Interop.AtSymlinkNoFollow) is { } kind && kind != FileKind.Unknown)
        {
            return kind == FileKind.Directory ? Interop.DirentDirectory : Interop.DirentUnknown;
        }

        return KindAt(folderFd, name, flags: 0) == FileKind.Directory ? FolderBehindLink : Interop.DirentSymbolicLink;
    }

    /// <summary>What <paramref name="name"/> in the folder is, as <see cref="FileStatus.KindFromMode"/> tells it; <see langword="null"/> if it cannot be looked at.</summary>
    private static FileKind? KindAt(int folderFd, byte* name, int flags) =>
        Interop.StatxFd(folderFd, name, flags, Interop.StatxType, out Interop.Statx status) == 0 ? FileStatus.KindFromMode(status.Mode) : null;

    /// <summary>A subfolder's native path: the parent's, a separator and the name, NUL-terminated.</summary>
    private static byte[] Append(byte[] parent, ReadOnlySpan<byte> name)
    {
        int parentLength = parent.Length - 1;
        bool separator = parentLength == 0 || parent[parentLength - 1] != (byte)'/';
        byte[] path = new byte[parentLength + (separator ? 1 : 0) + name.Length + 1];
        parent.AsSpan(0, parentLength).CopyTo(path);
        if (separator)
        {
            path[parentLength] = (byte)'/';
        }

        name.CopyTo(path.AsSpan(path.Length - 1 - name.Length));
        return path;
    }
}
