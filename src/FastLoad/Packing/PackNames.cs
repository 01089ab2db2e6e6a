namespace FastLoad.Packing;

/// <summary>The rules an entry name follows, the same when writing and when reading (see docs/pack-format.md).</summary>
internal static class PackNames
{
    /// <summary>Longer names are refused: no file system needs more, and it bounds what a corrupt index can make us allocate.</summary>
    public const int MaxNameBytes = 1024;

    /// <summary>Returns why <paramref name="name"/> is not a safe relative name, or <see langword="null"/> when it is.</summary>
    public static string? Check(string name)
    {
        if (name.Length == 0)
        {
            return "the name is empty";
        }

        if (name.Contains('\0', StringComparison.Ordinal))
        {
            return "the name contains a NUL character";
        }

        if (name.Contains('\\', StringComparison.Ordinal))
        {
            return "the name contains a backslash (names use '/')";
        }

        if (name[0] == '/')
        {
            return "the name is rooted";
        }

        if (name.Contains(':', StringComparison.Ordinal))
        {
            // A drive letter ("C:x") or an alternate data stream on Windows; refused everywhere so packs travel.
            return "the name contains ':' (a drive letter or stream)";
        }

        // A loop of string.IndexOf rather than MemoryExtensions.Split, whose char instantiation is not precompiled: under
        // the JIT it ran unoptimized through every name of a pack being opened.
        for (int start = 0; start <= name.Length;)
        {
            int slash = name.IndexOf('/', start);
            int end = slash < 0 ? name.Length : slash;
            int length = end - start;
            if (length == 0)
            {
                return "the name has an empty segment";
            }

            if (name[start] == '.' && (length == 1 || (length == 2 && name[start + 1] == '.')))
            {
                return "the name has a '.' or '..' segment";
            }

            start = end + 1;
        }

        return null;
    }
}
