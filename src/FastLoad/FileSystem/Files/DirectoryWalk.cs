namespace FastLoad.FileSystem;

/// <summary>
/// Lists the files under a folder: full paths, in ordinal order, hidden files included, links to folders neither
/// followed nor listed. A missing root is a <see cref="DirectoryNotFoundException"/>, a folder that cannot be read an
/// <see cref="UnauthorizedAccessException"/> or <see cref="IOException"/> naming it: files are never skipped silently.
/// A subfolder that vanishes while it is walked is skipped, as .NET's enumeration skips it.
/// </summary>
/// <remarks>
/// The folders are read on up to 32 threads once reading them waits for the device (<see cref="FolderWalk"/>): on slow
/// storage each folder costs a request, and a serial walk waits for one after another. On Linux a folder is read with
/// getdents64, on a thread a core while the folders are cached (<see cref="GetdentsWalk"/>); elsewhere with .NET's
/// enumeration of one folder at a time, on the calling thread while they are cached (<see cref="EnumerationWalk"/>).
/// </remarks>
internal static partial class DirectoryWalk
{
    /// <param name="root">The folder.</param>
    /// <param name="pattern">The files' names to list (<c>*</c>, <c>?</c>).</param>
    /// <param name="recursive">Whether subfolders are walked.</param>
    /// <param name="walkersFromTheStart">
    /// For tests: walkers read the folders as if the first read had waited for the device, so that a walk of cached
    /// folders is shared between as many threads as a slow device's.
    /// </param>
    /// <param name="observer">For tests: sees the folders as they are listed, and the walkers.</param>
    /// <param name="openFolders">
    /// On Linux, keeps the descriptors of listed folders for a load to open their files by.
    /// </param>
    public static string[] Enumerate(
        string root,
        string pattern,
        bool recursive,
        bool walkersFromTheStart = false,
        DirectoryWalkObserver? observer = null,
        OpenFolders? openFolders = null)
    {
        FolderWalk walk = OperatingSystem.IsLinux()
            ? new GetdentsWalk(pattern, recursive, walkersFromTheStart, observer, openFolders)
            : new EnumerationWalk(pattern, recursive, walkersFromTheStart, observer);
        return walk.Run(root);
    }

    /// <summary>
    /// For tests and measurements: lists the files as <see cref="Enumerate"/> does on Windows and macOS, through .NET's
    /// enumeration, on any OS.
    /// </summary>
    internal static string[] EnumerateThroughDotNet(
        string root, string pattern, bool recursive, bool walkersFromTheStart = false, DirectoryWalkObserver? observer = null) =>
        new EnumerationWalk(pattern, recursive, walkersFromTheStart, observer).Run(root);

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
}
