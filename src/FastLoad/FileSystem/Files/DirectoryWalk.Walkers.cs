using System.Diagnostics.CodeAnalysis;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;

namespace FastLoad.FileSystem;

internal static partial class DirectoryWalk
{
    // Folders waiting before another walker is worth its thread: while the folders are cached, a walker only shares the
    // CPU's work, which a small tree does not repay; once a folder waited for the device, it reads while others wait.
    private const int FoldersForAnotherWalkerWhileCached = 16;
    private const int FoldersForAnotherWalkerWhileWaiting = 2;

    // Folders read at once once reading them has waited for the device: a network volume serves 32 requests at once,
    // and a disk orders what it is given. While the folders are cached, FolderWalk.WalkersWhileCached.
    private const int WalkersWhileWaiting = 32;

    // '\' on Windows, as the paths .NET makes there; '/' elsewhere.
    private static readonly char Separator = Path.DirectorySeparatorChar;

    /// <summary>
    /// A folder to read: its path as handed out, and on Linux as the bytes the OS knows it by (a name need not be
    /// UTF-8); once read, the files and subfolders it holds, in the order the OS listed them.
    /// </summary>
    private sealed class Folder(string path, byte[]? nativePath, bool isRoot)
    {
        public string Path { get; } = path;

        /// <summary>The path's bytes, NUL-terminated, where the folder is read by them (Linux).</summary>
        public byte[]? NativePath { get; } = nativePath;

        public bool IsRoot { get; } = isRoot;

        /// <summary>
        /// The place of its descriptor among the walk's <see cref="OpenFolders"/>, or -1 when it was closed.
        /// </summary>
        public int OpenSlot { get; set; } = -1;

        public List<string> Files { get; } = [];

        public List<Folder> Subfolders { get; } = [];

        /// <summary>
        /// Its files and subfolders in order (a file's path, or a subfolder), once its walker sorted them;
        /// <see langword="null"/> for a folder without subfolders, whose <see cref="Files"/> are sorted in place.
        /// </summary>
        public object[]? Entries { get; private set; }

        /// <summary>
        /// Sorts what it holds, on the walker that listed it: the walkers sort beside one another, and the paths are
        /// then only put one after another.
        /// </summary>
        public void Sort(NameComparer comparer)
        {
            comparer.NameStart = Path[^1] == Separator ? Path.Length : Path.Length + 1;
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
            Path[^1] == Separator
                ? string.Concat(Path, name)
                : string.Concat(Path, new ReadOnlySpan<char>(in Separator), name);

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
    /// same in each: the order <see cref="StringComparer.Ordinal"/> gives the full paths, at a fraction of the work.
    /// The sorts take its <see cref="Comparison{T}"/> delegates rather than an <see cref="IComparer{T}"/>: with a
    /// comparer object, the runtime builds its sort helper by reflection at the first sort of a process (about half a
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
                char xChar = i < xPath.Length ? xPath[i] : Separator, yChar = i < yPath.Length ? yPath[i] : Separator;
                if (xChar != yChar)
                {
                    return xChar - yChar;
                }
            }

            return xLength - yLength;
        }
    }

    /// <summary>Lists folders for one walker's thread, with what that thread needs to (a buffer, a clock).</summary>
    private abstract class FolderReader : IDisposable
    {
        /// <summary>
        /// Fills the <see cref="Folder.Files"/> and <see cref="Folder.Subfolders"/> of <paramref name="folder"/>;
        /// returns whether reading it waited for the device. A subfolder that vanished since its parent was read is
        /// left empty.
        /// </summary>
        public abstract bool Read(Folder folder);

        public virtual void Dispose()
        {
        }
    }

    /// <summary>
    /// One walk: a stack of folders to read, shared by the calling thread and the walkers it starts on reader threads,
    /// up to <see cref="WalkersWhileCached"/> while the folders are cached and more once reading one has waited for the
    /// device. Each folder keeps what it holds; the walk ends when no folder is left and none is being read.
    /// </summary>
    private abstract class FolderWalk(
        bool walkersFromTheStart, DirectoryWalkObserver? observer, OpenFolders? openFolders)
    {
        private readonly object _gate = new();
        private readonly Stack<Folder> _pending = new();

        // Guarded by _gate.
        private int _walkers = 1;
        private int _reading;
        private int _waiting;
        private bool _waitedForTheDevice = walkersFromTheStart;
        private ExceptionDispatchInfo? _error;

        /// <summary>For tests: sees the folders and the walkers.</summary>
        protected DirectoryWalkObserver? Observer { get; } = observer;

        /// <summary>Where listed folders' descriptors are kept for a load (Linux), or <see langword="null"/>.</summary>
        protected OpenFolders? OpenFolders { get; } = openFolders;

        /// <summary>
        /// Lists the files under <paramref name="root"/>, a full or relative path, with a separator at its end or not.
        /// </summary>
        public string[] Run(string root)
        {
            Folder rootFolder = CreateRoot(Path.TrimEndingDirectorySeparator(Path.GetFullPath(root)));
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
            int[]? folderOfPath = OpenFolders is null ? null : new int[paths.Length];
            int at = 0;
            AddInOrder(rootFolder, paths, folderOfPath, ref at);
            OpenFolders?.SetFolders(folderOfPath!);
            return paths;
        }

        /// <summary>
        /// The folder the walk starts from, its path full and without a trailing separator (but a root's).
        /// </summary>
        protected abstract Folder CreateRoot(string root);

        /// <summary>A reader for the calling thread, or a walker's.</summary>
        protected abstract FolderReader CreateReader();

        /// <summary>The walkers, the calling thread included, while no folder has waited for the device.</summary>
        protected virtual int WalkersWhileCached => Environment.ProcessorCount;

        /// <summary>
        /// Puts the files of <paramref name="folder"/> and below in <paramref name="paths"/> in ordinal order, as each
        /// folder's walker sorted them (<see cref="Folder.Sort"/>): its files and subfolders together by name, a
        /// subfolder as its name and a separator, since every path below it starts so. Each folder sorts only its own
        /// names, so no comparison goes over the shared part of two paths. <paramref name="folderOfPath"/>, when given,
        /// gets each file's folder's place among the open folders.
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
            var walk = (FolderWalk)state!;
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
            using FolderReader reader = CreateReader();
            var comparer = new NameComparer();
            while (TryTake(out Folder? folder))
            {
                bool waitedForTheDevice = false;
                try
                {
                    waitedForTheDevice = reader.Read(folder);
                }
                catch (Exception error)
                {
                    Fail(error);
                }

                Observer?.FolderListed?.Invoke(folder.Path);
                Done(folder.Subfolders, waitedForTheDevice);

                // After its subfolders are out for the other walkers: they only read a subfolder's path from here on.
                folder.Sort(comparer);
            }
        }

        private bool TryTake([NotNullWhen(true)] out Folder? folder)
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
                    : (FoldersForAnotherWalkerWhileCached, WalkersWhileCached);
                start = _error is null && _pending.Count >= foldersForAnotherWalker
                    ? Math.Max(0, Math.Min(_pending.Count - 1, walkerLimit - _walkers))
                    : 0;
                _walkers += start;
                Observer?.WalkersRunning(_walkers);
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
    }
}
