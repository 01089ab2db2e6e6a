using System.Globalization;
using System.Text;

namespace FastLoad.Prefetch;

/// <summary>One mapping of a file into this process, as a line of <c>/proc/self/maps</c> describes it.</summary>
/// <param name="Start">The first address.</param>
/// <param name="End">The address just past the mapping.</param>
/// <param name="Offset">Where in the file the mapping starts.</param>
/// <param name="Path">The file's path.</param>
internal sealed record Mapping(ulong Start, ulong End, long Offset, string Path);

/// <summary>
/// Reads <c>/proc/self/maps</c> (Linux, proc(5)): "start-end perms offset dev inode path", addresses and offset in
/// hexadecimal, the path after spaces. Only regular files are kept: not anonymous memory, not devices, pseudo files,
/// memfd or files deleted since they were mapped.
/// </summary>
internal static class ProcessMaps
{
    private static readonly string[] NotFiles = ["/dev/", "/proc/", "/sys/", "/memfd:"];

    public static List<Mapping> Read() => Parse(File.ReadAllBytes("/proc/self/maps"));

    public static List<Mapping> Parse(ReadOnlySpan<byte> text)
    {
        var mappings = new List<Mapping>();
        while (!text.IsEmpty)
        {
            int end = text.IndexOf((byte)'\n');
            if (ParseLine(end < 0 ? text : text[..end]) is { } mapping)
            {
                mappings.Add(mapping);
            }

            text = end < 0 ? [] : text[(end + 1)..];
        }

        return mappings;
    }

    /// <summary>The mapping a line describes, or <see langword="null"/> if it maps no regular file or does not parse.</summary>
    internal static Mapping? ParseLine(ReadOnlySpan<byte> line)
    {
        Span<Range> fields = stackalloc Range[6];
        int count = SplitFields(line, fields);
        if (count < 6)
        {
            return null;
        }

        ReadOnlySpan<byte> addresses = line[fields[0]];
        int dash = addresses.IndexOf((byte)'-');
        if (dash < 0
            || !ulong.TryParse(addresses[..dash], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out ulong start)
            || !ulong.TryParse(addresses[(dash + 1)..], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out ulong stop)
            || stop <= start
            || !long.TryParse(line[fields[2]], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out long offset)
            || offset < 0
            || !ulong.TryParse(line[fields[4]], NumberStyles.None, CultureInfo.InvariantCulture, out ulong inode)
            || inode == 0)
        {
            return null;
        }

        ReadOnlySpan<byte> pathBytes = line[fields[5]];
        if (pathBytes.IsEmpty || pathBytes[0] != (byte)'/' || EndsWithDeleted(pathBytes))
        {
            return null;
        }

        string path = Encoding.UTF8.GetString(pathBytes);
        foreach (string prefix in NotFiles)
        {
            if (path.StartsWith(prefix, StringComparison.Ordinal))
            {
                return null;
            }
        }

        return new Mapping(start, stop, offset, path);
    }

    // A byte loop rather than EndsWith<byte>, code the runtime would compile for this alone.
    private static bool EndsWithDeleted(ReadOnlySpan<byte> path)
    {
        ReadOnlySpan<byte> deleted = " (deleted)"u8;
        if (path.Length < deleted.Length)
        {
            return false;
        }

        for (int i = 0; i < deleted.Length; i++)
        {
            if (path[path.Length - deleted.Length + i] != deleted[i])
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Five space-separated fields, then the rest of the line after the spaces that follow (the path, which may hold spaces).</summary>
    private static int SplitFields(ReadOnlySpan<byte> line, Span<Range> fields)
    {
        int at = 0;
        for (int field = 0; field < 5; field++)
        {
            while (at < line.Length && line[at] == (byte)' ')
            {
                at++;
            }

            int start = at;
            while (at < line.Length && line[at] != (byte)' ')
            {
                at++;
            }

            if (at == start)
            {
                return field;
            }

            fields[field] = start..at;
        }

        while (at < line.Length && line[at] == (byte)' ')
        {
            at++;
        }

        fields[5] = at..line.Length;
        return 6;
    }
}
