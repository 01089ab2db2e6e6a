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

        foreach (Range range in name.AsSpan().Split('/'))
        {
            ReadOnlySpan<char> segment = name.AsSpan()[range];
            if (segment.Length == 0)
            {
                return "the name has an empty segment";
            }

            if (segment is "." or "..")
            {
                return "the name has a '.' or '..' segment";
            }
        }

        return null;
    }
}
