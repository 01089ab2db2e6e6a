using FastLoad.FileSystem;

namespace FastLoad.Engine;

/// <summary>
/// Lists the files of a set and tells which device each lies on, without touching the files themselves: a file's
/// size and kind come from the descriptor its read opens, so that a small file costs open, fstat, read and close.
/// </summary>
internal static class FilePlanner
{
    private const char ReplacementCharacter = '\uFFFD';

    /// <summary>
    /// The paths of the set, the descriptors of a directory's folders to open them by (see <see cref="OpenFolders"/>), and
    /// the positions of those that cannot name one file for sure (<see langword="null"/> when none): .NET decodes a file
    /// name that is not valid UTF-8 with U+FFFD in place of the bad bytes, so two entries of one listing can come out as
    /// the same string; the second and later ones are marked.
    /// </summary>
    /// <remarks>The sets are made only where a name holds U+FFFD, so that the common load never loads their types.</remarks>
    public static string[] Enumerate(FileSet files, CancellationToken cancellationToken, out UndecodableNames? undecodable, out OpenFolders? openFolders)
    {
        string[] paths = files.ToPathArray(out openFolders);
        undecodable = null;
        try
        {
            for (int index = 0; index < paths.Length; index++)
            {
                if ((index & 1023) == 0)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                }

                if (paths[index].Contains(ReplacementCharacter, StringComparison.Ordinal))
                {
                    (undecodable ??= new UndecodableNames()).Add(paths[index], index);
                }
            }
        }
        catch
        {
            openFolders?.Dispose();
            openFolders = null;
            throw;
        }

        return paths;
    }

    /// <summary>The error of a path that cannot be opened by name, or <see langword="null"/>.</summary>
    public static IOException? CheckName(string path, bool undecodable) => undecodable ? NotUtf8(path) : null;

    /// <summary>
    /// The error to report for a path that was not found: a listed name that is not valid UTF-8 exists, but cannot be
    /// passed back to the OS; any other path keeps <paramref name="error"/>.
    /// </summary>
    public static Exception ExplainNotFound(string path, FileNotFoundException error) =>
        path.Contains(ReplacementCharacter, StringComparison.Ordinal) ? NotUtf8(path) : error;

    /// <summary>
    /// Sorts files by the physical position of their first extent (<see cref="PhysicalLayout.FirstExtentOffset"/>);
    /// files whose position is unknown keep their order, at the end. Does nothing where the platform cannot tell.
    /// </summary>
    public static void SortPhysically(List<PlannedFile> files)
    {
        if (!PhysicalLayout.IsSupported)
        {
            return;
        }

        var offsets = new Dictionary<int, ulong>(files.Count);
        foreach (PlannedFile file in files)
        {
            offsets[file.Index] = PhysicalLayout.FirstExtentOffset(file.Path);
        }

        files.Sort((a, b) =>
        {
            int byOffset = offsets[a.Index].CompareTo(offsets[b.Index]);
            return byOffset != 0 ? byOffset : a.Index.CompareTo(b.Index);
        });
    }

    private static IOException NotUtf8(string path) =>
        new(
            $"'{path}': the file's name is not valid UTF-8 (U+FFFD stands where .NET could not decode its bytes), so it "
            + "cannot be opened by name. Rename it to load it.");
}
