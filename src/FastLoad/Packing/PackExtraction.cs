namespace FastLoad.Packing;

/// <summary>Maps an entry name to a path under the extraction folder that cannot lead outside it.</summary>
internal static class PackExtraction
{
    /// <summary>
    /// Returns where to create the entry's file, with its folders created. Every folder on the way is checked to be a
    /// real directory, not a symbolic link (which could point anywhere); an existing file in the entry's place is
    /// removed unless it is a link or a directory, so the caller can create the file anew (O_EXCL does not follow links).
    /// </summary>
    public static string PrepareTarget(string root, string name, HashSet<string> safeDirectories)
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
            existing.Delete();
        }

        return target;
    }
}
