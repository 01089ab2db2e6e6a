using FastLoad.Reading;

namespace FastLoad.Planning;

/// <summary>
/// Describes files before they are read. A load stats each file just before it is queued rather than all of them
/// up front, so that reading starts at once; the parallelism is chosen from a sample of the sizes.
/// </summary>
internal static class FilePlanner
{
    /// <summary>How many files, spread evenly over the set, describe its size distribution.</summary>
    internal const int SampleSize = 64;

    /// <summary>
    /// The paths of the set, and the positions of those that cannot name one file for sure: .NET decodes a file name
    /// that is not valid UTF-8 with U+FFFD in place of the bad bytes, so two entries of one listing can come out as
    /// the same string; the second and later ones are marked.
    /// </summary>
    public static (List<string> Paths, HashSet<int> Undecodable) Enumerate(FileSet files, CancellationToken cancellationToken)
    {
        var paths = new List<string>();
        var undecodable = new HashSet<int>();
        HashSet<string>? seenWithReplacement = null;
        foreach (string path in files.EnumeratePaths())
        {
            if ((paths.Count & 1023) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            if (path.Contains(ReplacementCharacter, StringComparison.Ordinal) && !(seenWithReplacement ??= new(StringComparer.Ordinal)).Add(path))
            {
                undecodable.Add(paths.Count);
            }

            paths.Add(path);
        }

        return (paths, undecodable);
    }

    /// <summary>Plans up to <see cref="SampleSize"/> files at evenly spaced positions of the set, by index: their mean size sets the initial parallelism, and the load uses these plans rather than statting the files again.</summary>
    public static Dictionary<int, PlannedFile> PlanSample(List<string> paths, HashSet<int> undecodable)
    {
        int count = Math.Min(SampleSize, paths.Count);
        var sample = new Dictionary<int, PlannedFile>(count);
        for (int i = 0; i < count; i++)
        {
            int index = (int)((long)i * paths.Count / count);
            sample[index] = Plan(index, paths[index], undecodable.Contains(index));
        }

        return sample;
    }

    public static PlannedFile Plan(int index, string path, bool undecodable = false)
    {
        try
        {
            if (undecodable)
            {
                throw NotUtf8(path);
            }

            FileStatus status = FileStatus.Get(path);
            Exception? error = status.Kind != FileKind.Regular ? ReadableFile.NotRegularFile(path, status.Kind) : null;
            return new PlannedFile(index, path, error is null ? status.Length : 0, status.DeviceId, error);
        }
        catch (FileNotFoundException) when (path.Contains(ReplacementCharacter, StringComparison.Ordinal))
        {
            // The entry was listed, so it exists: its real name is not valid UTF-8 and cannot be passed back to the OS.
            return new PlannedFile(index, path, 0, 0, NotUtf8(path));
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            return new PlannedFile(index, path, 0, 0, ex);
        }
    }

    private const char ReplacementCharacter = '\uFFFD';

    private static IOException NotUtf8(string path) =>
        new($"'{path}': the file's name is not valid UTF-8 (U+FFFD stands where .NET could not decode its bytes), so it cannot be opened by name. Rename it to load it.");
}
