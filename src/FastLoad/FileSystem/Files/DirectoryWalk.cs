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
        Array.Sort(paths, string.CompareOrdinal); // A Comparison: no sort helper built by reflection (see NameComparer).
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
