using System.Diagnostics;
using System.IO.Enumeration;

namespace FastLoad.FileSystem;

internal static partial class DirectoryWalk
{
    // A folder opened and its first entries read in longer than this waited for the device: above what a cached folder
    // costs under load, below two requests to a network share or one seek.
    private static readonly long EnumerationWaitTicks = Stopwatch.Frequency / 1000;

    /// <summary>
    /// A walk that reads each folder with .NET's enumeration of one folder (Windows, macOS). The calling thread walks
    /// cached folders alone, as .NET's recursive enumeration did (the walker a core that Linux gets is measured only
    /// there). Walkers start once two folders have waited for the device: opening each and reading its first entries
    /// took over <see cref="EnumerationWaitTicks"/>. A slow device shows there, where a large cached folder's later
    /// entries, which only cost CPU, do not; the root is not judged, since it also carries the first calls of a
    /// process's first walk; and two, because these systems give no run-queue time to tell a folder preempted on a busy
    /// machine from one that waited.
    /// </summary>
    private sealed class EnumerationWalk(
        string pattern, bool recursive, bool walkersFromTheStart, DirectoryWalkObserver? observer)
        : FolderWalk(walkersFromTheStart, observer, openFolders: null)
    {
        // Folders that waited before the walk takes the device as slow.
        private const int WaitsForWalkers = 2;

        private readonly string _pattern = pattern;
        private readonly bool _recursive = recursive;
        private readonly bool _ignoreCase = !OperatingSystem.IsLinux();
        private readonly EnumerationOptions _options = new()
        {
            RecurseSubdirectories = false,
            IgnoreInaccessible = false,
            AttributesToSkip = 0,
            ReturnSpecialDirectories = false,
        };

        private int _waits;

        protected override int WalkersWhileCached => 1;

        protected override Folder CreateRoot(string root) => new(root, nativePath: null, isRoot: true);

        protected override FolderReader CreateReader() => new Reader(this);

        /// <summary>Counts a folder that waited; whether the walk now takes the device as slow.</summary>
        private bool Waited() => Interlocked.Increment(ref _waits) >= WaitsForWalkers;

        private sealed class Reader(EnumerationWalk walk) : FolderReader
        {
            public override bool Read(Folder folder)
            {
                long started = Stopwatch.GetTimestamp();
                walk.Observer?.FolderReading?.Invoke(folder.Path);
                FolderEntries entries;
                try
                {
                    entries = new FolderEntries(walk, folder);
                }
                catch (DirectoryNotFoundException) when (!folder.IsRoot)
                {
                    // Gone since its parent was read: .NET's enumeration skips it too.
                    return false;
                }

                using (entries)
                {
                    while (entries.MoveNext())
                    {
                    }

                    long firstEntries = entries.FirstEntryTimestamp == 0
                        ? Stopwatch.GetTimestamp()
                        : entries.FirstEntryTimestamp;
                    return !folder.IsRoot && firstEntries - started > EnumerationWaitTicks && walk.Waited();
                }
            }
        }

        /// <summary>
        /// One folder's entries: the files whose names match go to <see cref="Folder.Files"/>, the subfolders to walk
        /// to <see cref="Folder.Subfolders"/>; nothing is handed out. Links to folders are neither: .NET recurses into
        /// a link to a folder on Unix, and a link back up the tree would go on until the OS gives up.
        /// </summary>
        private sealed class FolderEntries(EnumerationWalk walk, Folder folder)
            : FileSystemEnumerator<string?>(folder.Path, walk._options)
        {
            /// <summary>When the first entry came: the folder opened and its first entries read.</summary>
            public long FirstEntryTimestamp { get; private set; }

            protected override bool ShouldIncludeEntry(ref FileSystemEntry entry)
            {
                if (FirstEntryTimestamp == 0)
                {
                    FirstEntryTimestamp = Stopwatch.GetTimestamp();
                }

                if (entry.IsDirectory)
                {
                    if (walk._recursive && (entry.Attributes & FileAttributes.ReparsePoint) == 0)
                    {
                        string path = folder.PathOf(entry.FileName);
                        folder.Subfolders.Add(new Folder(path, nativePath: null, isRoot: false));
                    }
                }
                else if (FileSystemName.MatchesSimpleExpression(walk._pattern, entry.FileName, walk._ignoreCase))
                {
                    folder.Files.Add(folder.PathOf(entry.FileName));
                }

                return false;
            }

            protected override string? TransformEntry(ref FileSystemEntry entry) => null;
        }
    }
}
