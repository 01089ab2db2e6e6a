using System.IO.Enumeration;

namespace FastLoad.FileSystem;

/// <summary>
/// Lists the files under a folder: full paths, in ordinal order, hidden files included, links to folders neither
/// followed nor listed. A missing root is a <see cref="DirectoryNotFoundException"/>, a folder that cannot be read an
/// <see cref="UnauthorizedAccessException"/> or <see cref="IOException"/> naming it: files are never skipped silently.
/// A subfolder that vanishes while it is walked is skipped, as .NET's enumeration skips it.
/// </summary>
/// <remarks>
/// On Linux the folders are read with getdents64, on a thread a core while they are cached, and on up to 32 once a
/// folder's system calls waited for the device (<see cref="WalkLinux"/>): on slow storage each folder costs a request,
/// and a serial walk waits for one after another. Elsewhere .NET's enumeration walks them.
/// </remarks>
internal static partial class DirectoryWalk
{
    /// <param name="root">The folder.</param>
    /// <param name="pattern">The files' names to list (<c>*</c>, <c>?</c>).</param>
    /// <param name="recursive">Whether subfolders are walked.</param>
    /// <param name="walkersFromTheStart">
    /// For tests: on Linux, walkers read the folders as if the first read had waited for the device, so that a walk of
    /// cached folders is shared between as many threads as a slow device's.
    /// </param>
    /// <param name="observer">For tests: sees the folders as they are listed, and the walkers (Linux).</param>
    /// <param name="openFolders">On Linux, keeps the descriptors of listed folders for a load to open their files by.</param>
    public static string[] Enumerate(
        string root, string pattern, bool recursive, bool walkersFromTheStart = false, DirectoryWalkObserver? observer = null, OpenFolders? openFolders = null)
    {
        if (OperatingSystem.IsLinux())
        {
            return WalkLinux(root, pattern, recursive, walkersFromTheStart, observer, openFolders);
        }

        string[] paths = WalkPortable(root, pattern, recursive);
        Array.Sort(paths, StringComparer.Ordinal);
        return paths;
    }

    /// <summary>
    /// Lists the files under <paramref name="root"/> for a load: on Linux with the descriptors of their folders kept
    /// open (<paramref name="openFolders"/>, which the caller disposes once the load's reads are done).
    /// </summary>
    public static string[] EnumerateForLoad(string root, string pattern, bool recursive, out OpenFolders? openFolders)
    {
        openFolders = OperatingSystem.IsLinux() ? OpenFolders.Create() : null;
        try
        {
            return Enumerate(root, pattern, recursive, openFolders: openFolders);
        }
        catch
        {
            openFolders?.Dispose();
            openFolders = null;
            throw;
        }
    }

    private static string[] WalkPortable(string root, string pattern, bool recursive)
    {
        var options = new EnumerationOptions
        {
            RecurseSubdirectories = recursive,
            IgnoreInaccessible = false,
            AttributesToSkip = 0,
            ReturnSpecialDirectories = false,
        };
        bool ignoreCase = !OperatingSystem.IsLinux();
        var enumerable = new FileSystemEnumerable<string>(root, static (ref FileSystemEntry entry) => entry.ToFullPath(), options)
        {
            ShouldIncludePredicate = (ref FileSystemEntry entry) =>
                !entry.IsDirectory && FileSystemName.MatchesSimpleExpression(pattern, entry.FileName, ignoreCase),

            // .NET recurses into symbolic links to directories on Unix; a link back up the tree would then go on
            // until the OS gives up. Links to directories are neither followed nor listed.
            ShouldRecursePredicate = static (ref FileSystemEntry entry) => (entry.Attributes & FileAttributes.ReparsePoint) == 0,
        };

        return new List<string>(enumerable).ToArray();
    }
}

/// <summary>For tests: sees a walk's folders as they are listed, and how many walkers ran at once.</summary>
internal sealed class DirectoryWalkObserver
{
    private int _peakWalkers = 1;

    /// <summary>Called with each folder's path once it is listed, on the walker's thread, outside the walk's lock.</summary>
    public Action<string>? FolderListed { get; init; }

    /// <summary>The most walkers that ran at once, the calling thread included.</summary>
    public int PeakWalkers => Volatile.Read(ref _peakWalkers);

    internal void WalkersRunning(int walkers) => InterlockedMax.TryRaise(ref _peakWalkers, walkers);
}

/// <summary>
/// The descriptors of folders a walk listed, kept open for the load that reads their files: the load opens each file by
/// its name in its folder (<c>openat</c>), which spares the kernel the lookup of every folder on the file's path, and
/// reads the folder it listed even if that folder is renamed meanwhile. At most <see cref="Limit"/> folders (a
/// sixteenth of the descriptors the process may open, at most 128); the files of the others are opened by their whole
/// path. Disposing closes the descriptors; so does the finalizer, for a load its consumer abandoned.
/// </summary>
internal sealed class OpenFolders : IDisposable
{
    private const int MaxFolders = 128;

    private readonly int[] _descriptors;
    private int _reserved;
    private int[]? _folderOfPath;
    private int _closed;

    private OpenFolders(int limit) => _descriptors = new int[limit];

    ~OpenFolders() => Close();

    /// <summary>How many folders are kept at most.</summary>
    public int Limit => _descriptors.Length;

    /// <summary>How many folders are kept.</summary>
    public int Count => Math.Min(Volatile.Read(ref _reserved), _descriptors.Length);

    /// <summary>A holder for this process's limit of descriptors, or <see langword="null"/> where it is too low to spare any.</summary>
    public static unsafe OpenFolders? Create()
    {
        Interop.ResourceLimit limit;
        long allowed = Interop.GetResourceLimit(Interop.ResourceLimitOpenFiles, &limit) == 0 ? (long)Math.Min(limit.Current, int.MaxValue) / 16 : 0;
        return allowed > 0 ? new OpenFolders((int)Math.Min(allowed, MaxFolders)) : null;
    }

    /// <summary>The descriptor of the folder of the path at <paramref name="index"/>, or -1 when it was not kept.</summary>
    public int FolderOf(int index) => _folderOfPath is { } folders && folders[index] >= 0 ? _descriptors[folders[index]] : -1;

    public void Dispose()
    {
        Close();
        GC.SuppressFinalize(this);
    }

    /// <summary>Keeps <paramref name="descriptor"/>; its place, or -1 when the limit is reached (the caller closes it). Any thread.</summary>
    internal int TryKeep(int descriptor)
    {
        int slot = Interlocked.Increment(ref _reserved) - 1;
        if (slot >= _descriptors.Length)
        {
            return -1;
        }

        _descriptors[slot] = descriptor;
        return slot;
    }

    /// <summary>Sets, for each listed path, the place of its folder's descriptor (-1 where it was not kept).</summary>
    internal void SetFolders(int[] folderOfPath) => _folderOfPath = folderOfPath;

    private void Close()
    {
        if (Interlocked.Exchange(ref _closed, 1) != 0)
        {
            return;
        }

        int count = Count;
        for (int slot = 0; slot < count; slot++)
        {
            Interop.Close(_descriptors[slot]);
        }
    }
}
