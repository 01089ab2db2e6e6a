using System.Diagnostics;
using System.IO.Enumeration;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;

namespace FastLoad.FileSystem;

internal static unsafe partial class DirectoryWalk
{
    // Room for a few hundred entries a call; a larger folder takes several.
    private const int EntryBufferSize = 32 * 1024;

    // Folders waiting before another walker is worth its thread: while the folders are cached, a walker only shares the
    // CPU's work, which a small tree does not repay; once a folder waited for the device, it reads while others wait.
    private const int FoldersForAnotherWalkerWhileCached = 16;
    private const int FoldersForAnotherWalkerWhileWaiting = 2;

    // Folders read at once once reading one has waited for the device: a network volume serves 32 requests at once,
    // and a disk orders what it is given. While the folders are cached, a walker a core (docs/measurements/folder-walk.md).
    private const int WalkersWhileWaiting = 32;

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

    [SupportedOSPlatform("linux")]
    private static string[] WalkLinux(
        string root, string pattern, bool recursive, bool walkersFromTheStart, DirectoryWalkObserver? observer, OpenFolders? openFolders)
    {
        var walk = new LinuxWalk(pattern, recursive, walkersFromTheStart, observer, openFolders);
        return walk.Run(Path.TrimEndingDirectorySeparator(Path.GetFullPath(root)));
    }

    /// <summary>
    /// A folder to read: its path as handed out, and as the bytes the OS knows it by (a name need not be UTF-8); once
    /// read, the files and subfolders it holds, in the order the OS listed them.
    /// </summary>
    private sealed class Folder(string path, byte[] nativePath, bool isRoot)
    {
        public string Path { get; } = path;

        /// <summary>The path's bytes, NUL-terminated.</summary>
        public byte[] NativePath { get; } = nativePath;

        public bool IsRoot { get; } = isRoot;

        /// <summary>The place of its descriptor among the walk's <see cref="OpenFolders"/>, or -1 when it was closed.</summary>
        public int OpenSlot { get; set; } = -1;

        public List<string> Files { get; } = [];

        public List<Folder> Subfolders { get; } = [];

        /// <summary>
        /// Its files and subfolders in order (a file's path, or a subfolder), once its walker sorted them; <see langword="null"/>
        /// for a folder without subfolders, whose <see cref="Files"/> are sorted in place.
        /// </summary>
        public object[]? Entries { get; private set; }

        /// <summary>
        /// Sorts what it holds, on the walker that listed it: the walkers sort beside one another, and the paths are then
        /// only put one after another.
        /// </summary>
        public void Sort(NameComparer comparer)
        {
            comparer.NameStart = Path.EndsWith('/') ? Path.Length : Path.Length + 1;
            if (Subfolders.Count == 0)
            {
                CollectionsMarshal.AsSpan(Files).Sort(comparer.Paths);
                return;
            }

            var entries = new object[Files.Count + Subfolders.Count];
            int count = 0;
            foreach (string file in Files)
            {
                entries[count++] = file;
            }

            foreach (Folder subfolder in Subfolders)
            {
                entries[count++] = subfolder;
            }

            Array.Sort(entries, comparer.Entries);
            Entries = entries;
        }

        /// <summary>The path of the entry <paramref name="name"/> in this folder.</summary>
        public string PathOf(ReadOnlySpan<char> name) =>
            Path.EndsWith('/') ? string.Concat(Path, name) : string.Concat(Path, "/", name);

        /// <summary>The files in this folder and below it.</summary>
        public int CountFiles()
        {
            int count = Files.Count;
            foreach (Folder subfolder in Subfolders)
            {
                count += subfolder.CountFiles();
            }

            return count;
        }
    }

    /// <summary>
    /// Compares the paths of one folder's entries ordinally from where their names start, the folder's path being the
    /// same in each: the order <see cref="StringComparer.Ordinal"/> gives the full paths, at a fraction of the work. The
    /// sorts take its <see cref="Comparison{T}"/> delegates rather than an <see cref="IComparer{T}"/>: with a comparer
    /// object, the runtime builds its sort helper by reflection at the first sort of a process (about half a
    /// millisecond each for the two kinds of sort here, under the JIT).
    /// </summary>
    private sealed class NameComparer
    {
        public NameComparer()
        {
            Paths = ComparePaths;
            Entries = CompareEntries;
        }

        public int NameStart { get; set; }

        /// <summary>Compares two paths of the folder's files.</summary>
        public Comparison<string> Paths { get; }

        /// <summary>
        /// Compares two entries of the folder: a file's path (a string), or a subfolder, which sorts as its path and a
        /// separator, as every path below it starts.
        /// </summary>
        public Comparison<object> Entries { get; }

        // Apart from CompareEntries, without its separator test per character: sorting a folder's files is the walk's
        // hottest loop (docs/measurements/folder-walk.md measured the two folded into one).
        private int ComparePaths(string x, string y)
        {
            int length = Math.Min(x.Length, y.Length);
            for (int i = NameStart; i < length; i++)
            {
                if (x[i] != y[i])
                {
                    return x[i] - y[i];
                }
            }

            return x.Length - y.Length;
        }

        private int CompareEntries(object x, object y)
        {
            string xPath = x as string ?? ((Folder)x).Path, yPath = y as string ?? ((Folder)y).Path;
            int xLength = xPath.Length + (x is Folder ? 1 : 0), yLength = yPath.Length + (y is Folder ? 1 : 0);
            int length = Math.Min(xLength, yLength);
            for (int i = NameStart; i < length; i++)
            {
                // Past its path, a subfolder's key goes on with the separator.
                char xChar = i < xPath.Length ? xPath[i] : '/', yChar = i < yPath.Length ? yPath[i] : '/';
                if (xChar != yChar)
                {
                    return xChar - yChar;
                }
            }

            return xLength - yLength;
        }
    }

    /// <summary>
    /// One walk: a stack of folders to read, shared by the calling thread and the walkers it starts on reader threads, up to
    /// a core's worth while the folders are cached and more once reading one has waited for the device. Each folder keeps
    /// what it holds; the walk ends when no folder is left and none is being read.
    /// </summary>
    private sealed class LinuxWalk(string pattern, bool recursive, bool walkersFromTheStart, DirectoryWalkObserver? observer, OpenFolders? openFolders)
    {
        private readonly object _gate = new();
        private readonly Stack<Folder> _pending = new();
        private readonly bool _matchAll = pattern == "*";

        // Guarded by _gate.
        private int _walkers = 1;
        private int _reading;
        private int _waiting;
        private bool _waitedForTheDevice = walkersFromTheStart;
        private ExceptionDispatchInfo? _error;

        public string[] Run(string root)
        {
            byte[] nativeRoot = new byte[Encoding.UTF8.GetByteCount(root) + 1];
            Encoding.UTF8.GetBytes(root, nativeRoot);
            var rootFolder = new Folder(root, nativeRoot, isRoot: true);
            _pending.Push(rootFolder);

            Walk();
            lock (_gate)
            {
                while (_walkers > 1)
                {
                    Monitor.Wait(_gate);
                }
            }

            _error?.Throw();
            var paths = new string[rootFolder.CountFiles()];
            int[]? folderOfPath = openFolders is null ? null : new int[paths.Length];
            int at = 0;
            AddInOrder(rootFolder, paths, folderOfPath, ref at);
            openFolders?.SetFolders(folderOfPath!);
            return paths;
        }

        /// <summary>
        /// Puts the files of <paramref name="folder"/> and below in <paramref name="paths"/> in ordinal order, as each
        /// folder's walker sorted them (<see cref="Folder.Sort"/>): its files and subfolders together by name, a subfolder
        /// as its name and a separator, since every path below it starts so. Each folder sorts only its own names, so no
        /// comparison goes over the shared part of two paths.
        /// <paramref name="folderOfPath"/>, when given, gets each file's folder's place among the open folders.
        /// </summary>
        private static void AddInOrder(Folder folder, string[] paths, int[]? folderOfPath, ref int at)
        {
            if (folder.Entries is not { } entries)
            {
                List<string> files = folder.Files;
                files.CopyTo(paths, at);
                if (folderOfPath is not null)
                {
                    // A loop rather than Span.Fill, whose vectorized code is not precompiled: the JIT compiled it at a
                    // process's first walk.
                    for (int i = at; i < at + files.Count; i++)
                    {
                        folderOfPath[i] = folder.OpenSlot;
                    }
                }

                at += files.Count;
                return;
            }

            foreach (object entry in entries)
            {
                if (entry is Folder subfolder)
                {
                    AddInOrder(subfolder, paths, folderOfPath, ref at);
                }
                else
                {
                    if (folderOfPath is not null)
                    {
                        folderOfPath[at] = folder.OpenSlot;
                    }

                    paths[at++] = (string)entry;
                }
            }
        }

        private static void HelperWalk(object? state)
        {
            var walk = (LinuxWalk)state!;
            try
            {
                walk.Walk();
            }
            catch (Exception error)
            {
                // Walk records a folder's failure itself; this is a list that could not grow (out of memory).
                walk.Fail(error);
            }
            finally
            {
                walk.WalkerLeft();
            }
        }

        private void Walk()
        {
            byte* entries = (byte*)NativeMemory.Alloc(EntryBufferSize);
            Span<char> name = stackalloc char[256];
            var comparer = new NameComparer();
            long runQueueWait = ThreadSchedule.RunQueueWaitNanoseconds();
            try
            {
                while (TryTake(out Folder? folder))
                {
                    long systemCallTicks = 0;
                    try
                    {
                        Read(folder, entries, name, ref systemCallTicks);
                    }
                    catch (Exception error)
                    {
                        Fail(error);
                    }

                    observer?.FolderListed?.Invoke(folder.Path);
                    bool waitedForTheDevice = false;
                    if (systemCallTicks > DeviceWaitTicks)
                    {
                        long runQueueWaitNow = ThreadSchedule.RunQueueWaitNanoseconds();
                        waitedForTheDevice = !WaitedForACpu(runQueueWait, runQueueWaitNow, systemCallTicks);
                        runQueueWait = runQueueWaitNow;
                    }

                    Done(folder.Subfolders, waitedForTheDevice);

                    // After its subfolders are out for the other walkers: they only read a subfolder's path from here on.
                    folder.Sort(comparer);
                }
            }
            finally
            {
                NativeMemory.Free(entries);
            }
        }

        private bool TryTake([System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out Folder? folder)
        {
            lock (_gate)
            {
                while (_error is null)
                {
                    if (_pending.TryPop(out folder))
                    {
                        _reading++;
                        return true;
                    }

                    if (_reading == 0)
                    {
                        break;
                    }

                    // Another walker is reading a folder, which may hold more.
                    _waiting++;
                    Monitor.Wait(_gate);
                    _waiting--;
                }

                if (_waiting > 0)
                {
                    Monitor.PulseAll(_gate);
                }
            }

            folder = null;
            return false;
        }

        private void Done(List<Folder> subfolders, bool waitedForTheDevice)
        {
            int start;
            lock (_gate)
            {
                _reading--;
                foreach (Folder subfolder in subfolders)
                {
                    _pending.Push(subfolder);
                }

                _waitedForTheDevice |= waitedForTheDevice;
                (int foldersForAnotherWalker, int walkerLimit) = _waitedForTheDevice
                    ? (FoldersForAnotherWalkerWhileWaiting, WalkersWhileWaiting)
                    : (FoldersForAnotherWalkerWhileCached, Environment.ProcessorCount);
                start = _error is null && _pending.Count >= foldersForAnotherWalker
                    ? Math.Max(0, Math.Min(_pending.Count - 1, walkerLimit - _walkers))
                    : 0;
                _walkers += start;
                observer?.WalkersRunning(_walkers);
                if (_waiting > 0 && (subfolders.Count > 0 || _reading == 0))
                {
                    Monitor.PulseAll(_gate);
                }
            }

            for (int i = 0; i < start; i++)
            {
                try
                {
                    ReaderThreadPool.Shared.Run(HelperWalk, this);
                }
                catch (OutOfMemoryException)
                {
                    // No thread to be had (a pids limit): the walkers running read the rest.
                    WalkerLeft();
                }
            }
        }

        private void Fail(Exception error)
        {
            lock (_gate)
            {
                _error ??= ExceptionDispatchInfo.Capture(error);
                Monitor.PulseAll(_gate);
            }
        }

        private void WalkerLeft()
        {
            lock (_gate)
            {
                _walkers--;
                Monitor.PulseAll(_gate);
            }
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
                                subfolders.Add(new Folder(folder.PathOf(name[..length]), Append(folder.NativePath, nameBytes), isRoot: false));
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
                if (found.Count > 0 && openFolders is not null)
                {
                    folder.OpenSlot = openFolders.TryKeep(fd);
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
