using FastLoad.FileSystem;

namespace FastLoad;

/// <summary>
/// The files one load reads: a list of paths, or the files of a directory that match a pattern. A set is
/// immutable and can be loaded any number of times; a directory is enumerated anew at each load.
/// </summary>
public sealed class FileSet
{
    private readonly Func<IEnumerable<string>> _enumerate;
    private readonly Func<string> _description;
    private readonly WalkForLoad? _walkForLoad;

    // The description is built when asked for: formatting a number costs a new process more than reading a file.
    private FileSet(Func<IEnumerable<string>> enumerate, Func<string> description, string? rootDirectory = null, WalkForLoad? walkForLoad = null)
    {
        _enumerate = enumerate;
        _description = description;
        RootDirectory = rootDirectory;
        _walkForLoad = walkForLoad;
    }

    // A directory's walk for a load: its paths, and its folders kept open to open the files by (DirectoryWalk.EnumerateForLoad).
    private delegate string[] WalkForLoad(out OpenFolders? openFolders);

    /// <summary>The directory of a set made by <see cref="FromDirectory"/>, which pack entry names are relative to.</summary>
    internal string? RootDirectory { get; }

    /// <summary>Creates a set of the given paths, loaded in this order when ordering by input.</summary>
    /// <param name="paths">The paths of the files; relative paths are resolved against the current directory when loaded.</param>
    /// <returns>A set holding a copy of <paramref name="paths"/>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="paths"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">A path is <see langword="null"/> or empty.</exception>
    public static FileSet FromPaths(IEnumerable<string> paths)
    {
        ArgumentNullException.ThrowIfNull(paths);
        string[] copy = Copy(paths);
        for (int i = 0; i < copy.Length; i++)
        {
            if (string.IsNullOrEmpty(copy[i]))
            {
                throw new ArgumentException($"The path at position {i} is null or empty.", nameof(paths));
            }
        }

        return new FileSet(() => copy, () => $"{copy.Length} paths");
    }

    /// <summary>Creates a set of the files under a directory whose names match a pattern.</summary>
    /// <param name="root">The directory to enumerate.</param>
    /// <param name="pattern">A file name pattern with <c>*</c> and <c>?</c> wildcards.</param>
    /// <param name="recursive">
    /// Whether to include subdirectories; symbolic links to directories are not followed, so a link loop cannot make
    /// the enumeration endless.
    /// </param>
    /// <returns>A set that enumerates <paramref name="root"/> at each load, in ordinal order of the paths. Hidden files are included.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="root"/> or <paramref name="pattern"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="root"/> or <paramref name="pattern"/> is empty.</exception>
    /// <remarks>
    /// A missing or unreadable directory makes the load throw <see cref="DirectoryNotFoundException"/> or
    /// <see cref="UnauthorizedAccessException"/>: files are never skipped silently. The folders are listed on up to 32
    /// threads once listing them waits for the device, as on a network share where each folder costs a request; while
    /// they are cached, on a thread a core on Linux and on the calling thread elsewhere.
    /// </remarks>
    public static FileSet FromDirectory(string root, string pattern = "*", bool recursive = true)
    {
        ArgumentException.ThrowIfNullOrEmpty(root);
        ArgumentException.ThrowIfNullOrEmpty(pattern);
        return new FileSet(
            () => DirectoryWalk.Enumerate(root, pattern, recursive),
            () => $"{root}{System.IO.Path.DirectorySeparatorChar}{pattern}{(recursive ? " (recursive)" : string.Empty)}",
            root,
            (out OpenFolders? openFolders) => DirectoryWalk.EnumerateForLoad(root, pattern, recursive, out openFolders));
    }

    /// <summary>Creates a set of the files of several sets, in order.</summary>
    /// <param name="sets">The sets to join.</param>
    /// <returns>A set that enumerates each of <paramref name="sets"/> in turn.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="sets"/> or one of its elements is <see langword="null"/>.</exception>
    public static FileSet Concat(IEnumerable<FileSet> sets)
    {
        ArgumentNullException.ThrowIfNull(sets);
        FileSet[] copy = sets.ToArray();
        foreach (FileSet set in copy)
        {
            ArgumentNullException.ThrowIfNull(set, nameof(sets));
        }

        return new FileSet(() => copy.SelectMany(set => set.EnumeratePaths()), () => string.Join(" + ", copy.Select(set => set.ToString())));
    }

    /// <inheritdoc />
    public override string ToString() => _description();

    /// <summary>Enumerates the paths of the set as they are now (a directory is read anew at each call).</summary>
    /// <returns>The paths, in the order a load with <see cref="LoadOrdering.Input"/> delivers them.</returns>
    /// <exception cref="DirectoryNotFoundException">The root directory of the set does not exist.</exception>
    /// <exception cref="UnauthorizedAccessException">A directory of the set cannot be enumerated.</exception>
    public IEnumerable<string> EnumeratePaths() => _enumerate();

    // A copy without LINQ, which a new process would load and prepare first.
    private static string[] Copy(IEnumerable<string> paths)
    {
        if (paths is ICollection<string> collection)
        {
            var array = new string[collection.Count];
            collection.CopyTo(array, 0);
            return array;
        }

        var list = new List<string>(paths);
        return list.ToArray();
    }

    /// <summary>
    /// The paths of the set as they are now, in an array (a set of paths hands over its own copy, unchanged), and for a
    /// directory the descriptors of its folders, which the caller disposes (<see cref="OpenFolders"/>).
    /// </summary>
    internal string[] ToPathArray(out OpenFolders? openFolders)
    {
        if (_walkForLoad is not null)
        {
            return _walkForLoad(out openFolders);
        }

        openFolders = null;
        IEnumerable<string> paths = _enumerate();
        return paths as string[] ?? Copy(paths);
    }
}
