using System.Buffers;
using Microsoft.Extensions.FileProviders;

namespace FastLoad.FileProviders;

/// <summary>
/// The folders and files of a provider whose names are known up front (a pack's index, a preloaded folder), and the
/// path rules of <see cref="PhysicalFileProviderRules"/>: the same answers <c>PhysicalFileProvider</c> gives.
/// </summary>
internal sealed class FileTree
{
    private readonly Dictionary<string, IFileInfo> _files;
    private readonly Dictionary<string, List<IFileInfo>> _directories;

    /// <summary>Builds the tree of <paramref name="files"/>, whose names use '/' between segments; a later duplicate name is ignored.</summary>
    public FileTree(IEnumerable<(string Name, IFileInfo File)> files, DateTimeOffset directoriesModified)
    {
        Comparer = PhysicalFileProviderRules.NameComparer;
        _files = new Dictionary<string, IFileInfo>(Comparer);
        _directories = new Dictionary<string, List<IFileInfo>>(Comparer) { [string.Empty] = [] };
        foreach ((string name, IFileInfo file) in files)
        {
            if (_files.ContainsKey(name) || _directories.ContainsKey(name))
            {
                continue;
            }

            _files.Add(name, file);
            string child = name;
            List<IFileInfo> parent;
            while (true)
            {
                int slash = child.LastIndexOf('/');
                string parentName = slash < 0 ? string.Empty : child[..slash];
                bool known = _directories.TryGetValue(parentName, out parent!);
                if (!known)
                {
                    parent = [];
                    _directories.Add(parentName, parent);
                }

                parent.Add(ReferenceEquals(child, name) ? file : new TreeDirectoryInfo(child[(slash + 1)..], directoriesModified));
                if (known || slash < 0)
                {
                    break;
                }

                child = parentName;
            }
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
}

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
