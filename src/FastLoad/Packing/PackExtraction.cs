namespace FastLoad.Packing;

/// <summary>Maps an entry name to a path under the extraction folder that cannot lead outside it.</summary>
internal static partial class PackExtraction
{
    /// <summary>
    /// Elsewhere than Linux: returns where to create the entry's file, with its folders created. Every folder on the way is checked to be a
    /// real directory, not a symbolic link (which could point anywhere); an existing file in the entry's place is
    /// removed unless it is a link or a directory, so the caller can create the file anew (O_EXCL does not follow links).
    /// </summary>
    /// <param name="root">The extraction folder, a full path.</param>
    /// <param name="name">The entry's name.</param>
    /// <param name="safeDirectories">Folders already checked in this extraction.</param>
    /// <param name="extracted">
    /// Files already written in this extraction, by target path ignoring case, to their entry names: two entries that
    /// differ only by case are one file where the file system ignores case (Windows, macOS by default), and the second
    /// must not silently replace the first.
    /// </param>
    public static string PrepareTarget(string root, string name, HashSet<string> safeDirectories, Dictionary<string, string> extracted)
    {
        string target = Path.GetFullPath(Path.Combine(root, name.Replace('/', Path.DirectorySeparatorChar)));
        string rootWithSeparator = Path.EndsInDirectorySeparator(root) ? root : root + Path.DirectorySeparatorChar;
        if (!target.StartsWith(rootWithSeparator, StringComparison.Ordinal))
        {
            throw new IOException($"The entry '{name}' would be written outside '{root}', at '{target}'.");
        }

        string current = root;
        string[] segments = name.Split('/');
        for (int i = 0; i < segments.Length - 1; i++)
        {
            current = Path.Combine(current, segments[i]);
            if (safeDirectories.Contains(current))
            {
                continue;
            }

            var info = new DirectoryInfo(current);
            if (info.LinkTarget is not null)
            {
                throw new IOException($"The entry '{name}' is not written: '{current}' is a symbolic link, which could lead outside '{root}'.");
            }

            if (!info.Exists)
            {
                if (File.Exists(current))
                {
                    throw new IOException($"The entry '{name}' is not written: '{current}' is a file, not a folder.");
                }

                info.Create();
            }

            safeDirectories.Add(current);
        }

        var existing = new FileInfo(target);
        if (existing.LinkTarget is not null)
        {
            throw new IOException($"The entry '{name}' is not written: '{target}' is a symbolic link, which could lead outside '{root}'.");
        }

        if (Directory.Exists(target))
        {
            throw new IOException($"The entry '{name}' is not written: '{target}' is a folder.");
        }

        if (existing.Exists)
        {
            CheckCaseClash(target, name, extracted);
            existing.Delete();
        }

        extracted[target] = name;
        return target;
    }

    /// <summary>
    /// Refuses to replace <paramref name="target"/> when it is there under another name, which happens only where the
    /// file system ignores case: it is then an earlier entry's file.
    /// </summary>
    private static void CheckCaseClash(string target, string name, Dictionary<string, string> extracted)
    {
        if (extracted.TryGetValue(target, out string? earlier) && !IsListedExactly(target))
        {
            throw new IOException(
                $"The entry '{name}' is not written: the file system of '{Path.GetDirectoryName(target)}' ignores case, "
                + $"so it is the file of the entry '{earlier}', already extracted.");
        }
    }

    /// <summary>A dictionary for <see cref="PrepareTarget"/>'s extracted files.</summary>
    public static Dictionary<string, string> CreateExtractedFiles() => new(StringComparer.OrdinalIgnoreCase);

    private static bool IsListedExactly(string path)
    {
        string fileName = Path.GetFileName(path);
        return Directory.EnumerateFileSystemEntries(Path.GetDirectoryName(path)!)
            .Any(entry => string.Equals(Path.GetFileName(entry), fileName, StringComparison.Ordinal));
    }
}
