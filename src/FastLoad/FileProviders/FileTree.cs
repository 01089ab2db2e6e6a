using System.Buffers;
using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.FileProviders.Physical;

namespace FastLoad.FileProviders;

/// <summary>
/// The folders and files of a provider whose names are known up front (a pack's index, a preloaded folder), and the
/// path rules of <see cref="PhysicalFileProviderRules"/>: the same answers <c>PhysicalFileProvider</c> gives. Each
/// folder lists its entries in ordinal order of their names, so that every process lists a folder alike.
/// </summary>
internal sealed class FileTree
{
    private readonly Dictionary<string, IFileInfo> _files;
    private readonly Dictionary<string, List<IFileInfo>> _directories;

    /// <summary>Builds the tree of <paramref name="files"/> and <paramref name="directories"/>.</summary>
    /// <param name="files">The files to serve, named with '/' between segments; a later duplicate name is ignored.</param>
    /// <param name="directories">Folders known up front (empty ones included); others are made from the files' names.</param>
    /// <param name="describeDirectory">Describes a folder that is only known from the name of something in it.</param>
    public FileTree(
        IEnumerable<(string Name, IFileInfo File)> files, IEnumerable<TreeDirectory> directories, Func<string, TreeDirectory> describeDirectory)
    {
        Comparer = PhysicalFileProviderRules.NameComparer;
        _files = new Dictionary<string, IFileInfo>(Comparer);
        _directories = new Dictionary<string, List<IFileInfo>>(Comparer) { [string.Empty] = [] };
        foreach (TreeDirectory directory in directories)
        {
            AddDirectory(directory, describeDirectory);
        }

        foreach ((string name, IFileInfo file) in files)
        {
            if (_files.ContainsKey(name) || _directories.ContainsKey(name))
            {
                continue;
            }

            _files.Add(name, file);
            int slash = name.LastIndexOf('/');
            Directory(slash < 0 ? string.Empty : name[..slash], describeDirectory).Add(file);
        }

        foreach (List<IFileInfo> entries in _directories.Values)
        {
            entries.Sort(static (x, y) => string.CompareOrdinal(x.Name, y.Name));
        }
    }

    /// <summary>Gets how names are matched: the host file system's way (see <see cref="PhysicalFileProviderRules.NameComparer"/>).</summary>
    public StringComparer Comparer { get; }

    /// <summary>Gets the number of files.</summary>
    public int FileCount => _files.Count;

    public IFileInfo GetFileInfo(string subpath)
    {
        if (string.IsNullOrEmpty(subpath) || !PhysicalFileProviderRules.TryNormalize(subpath, out string name))
        {
            return new NotFoundFileInfo(subpath);
        }

        return _files.TryGetValue(name, out IFileInfo? file) ? file : new NotFoundFileInfo(subpath);
    }

    public IDirectoryContents GetDirectoryContents(string subpath)
    {
        if (subpath is null
            || !PhysicalFileProviderRules.TryNormalize(subpath, out string name)
            || !_directories.TryGetValue(name, out List<IFileInfo>? entries))
        {
            return NotFoundDirectoryContents.Singleton;
        }

        return new TreeDirectoryContents(entries);
    }

    /// <summary>The entries of the folder <paramref name="name"/>, which is added (with its parents) if it is not there yet.</summary>
    private List<IFileInfo> Directory(string name, Func<string, TreeDirectory> describe) =>
        _directories.TryGetValue(name, out List<IFileInfo>? entries) ? entries : AddDirectory(describe(name), describe);

    private List<IFileInfo> AddDirectory(TreeDirectory directory, Func<string, TreeDirectory> describe)
    {
        if (_directories.TryGetValue(directory.Name, out List<IFileInfo>? existing))
        {
            return existing;
        }

        int slash = directory.Name.LastIndexOf('/');
        List<IFileInfo> parent = Directory(slash < 0 ? string.Empty : directory.Name[..slash], describe);
        var entries = new List<IFileInfo>();
        _directories.Add(directory.Name, entries);
        if (directory.Listed)
        {
            parent.Add(new TreeDirectoryInfo(directory.Name[(slash + 1)..], directory.LastModified));
        }

        return entries;
    }
}

/// <summary>A folder of a <see cref="FileTree"/>.</summary>
/// <param name="Name">The folder's path under the root, with '/' between segments.</param>
/// <param name="LastModified">What its listing entry reports as <see cref="IFileInfo.LastModified"/>.</param>
/// <param name="Listed">
/// Whether its parent lists it: <see langword="false"/> for a folder the exclusion filters hide, which still answers
/// for the paths under it, as with <c>PhysicalFileProvider</c>.
/// </param>
internal readonly record struct TreeDirectory(string Name, DateTimeOffset LastModified, bool Listed);

/// <summary>How <c>PhysicalFileProvider</c> reads a subpath, so that trees answer as it does on the same host.</summary>
internal static class PhysicalFileProviderRules
{
    private static readonly char[] Separators = [Path.DirectorySeparatorChar, Path.AltDirectorySeparatorChar];

    // What PhysicalFileProvider refuses: the characters no file name may hold, separators aside ('\0' on Linux).
    private static readonly SearchValues<char> InvalidChars = SearchValues.Create(
        Path.GetInvalidFileNameChars().Where(c => c != Path.DirectorySeparatorChar && c != Path.AltDirectorySeparatorChar).ToArray());

    /// <summary>
    /// Ordinal on Linux, whose file systems tell case apart; ordinal ignoring case on Windows and macOS, whose default
    /// file systems do not.
    /// </summary>
    public static StringComparer NameComparer { get; } = OperatingSystem.IsLinux() ? StringComparer.Ordinal : StringComparer.OrdinalIgnoreCase;

    /// <summary>
    /// Whether <paramref name="filters"/> hide an entry, by <c>PhysicalFileProvider</c>'s rule: the entry's own name and
    /// attributes decide, never its folders', so a hidden folder is left out of listings and its files are still found
    /// by path.
    /// </summary>
    public static bool IsExcluded(ReadOnlySpan<char> name, FileAttributes attributes, ExclusionFilters filters) =>
        filters != ExclusionFilters.None
        && ((name is ['.', ..] && (filters & ExclusionFilters.DotPrefixed) != 0)
            || ((attributes & FileAttributes.Hidden) != 0 && (filters & ExclusionFilters.Hidden) != 0)
            || ((attributes & FileAttributes.System) != 0 && (filters & ExclusionFilters.System) != 0));

    /// <summary>
    /// The attributes .NET reports for an entry known by its name only (a pack records no attributes): hidden for a
    /// dot-prefixed name on Linux and macOS, as their file systems have it; none on Windows, where hidden is an attribute.
    /// </summary>
    public static FileAttributes AttributesOfName(ReadOnlySpan<char> name) =>
        !OperatingSystem.IsWindows() && name is ['.', ..] ? FileAttributes.Hidden : FileAttributes.Normal;

    /// <summary>
    /// Turns a subpath into a tree name ('/' between segments, "" for the root). Leading separators are dropped, '.'
    /// and empty segments skipped, '..' goes up; false for invalid characters, a rooted path, or one that leaves the root.
    /// </summary>
    public static bool TryNormalize(string subpath, out string name)
    {
        name = string.Empty;
        if (subpath.AsSpan().IndexOfAny(InvalidChars) >= 0)
        {
            return false;
        }

        string trimmed = subpath.TrimStart(Separators);
        if (Path.IsPathRooted(trimmed))
        {
            return false;
        }

        var segments = new List<string>();
        foreach (string segment in trimmed.Split(Separators))
        {
            if (segment is "" or ".")
            {
                continue;
            }

            if (segment == "..")
            {
                if (segments.Count == 0)
                {
                    return false;
                }

                segments.RemoveAt(segments.Count - 1);
                continue;
            }

            segments.Add(segment);
        }

        // PhysicalFileProvider's quirk: "." or "a/.." resolve to the root without its trailing separator, which it then
        // finds outside the root; "./" and "a/../" are the root.
        name = string.Join('/', segments);
        return !(name.Length == 0 && trimmed.Length > 0 && !Separators.Contains(trimmed[^1]));
    }
}
