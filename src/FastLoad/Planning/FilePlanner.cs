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

    public static List<string> Enumerate(FileSet files, CancellationToken cancellationToken)
    {
        var paths = new List<string>();
        foreach (string path in files.EnumeratePaths())
        {
            if ((paths.Count & 1023) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            paths.Add(path);
        }

        return paths;
    }

    /// <summary>The lengths of up to <see cref="SampleSize"/> readable files at evenly spaced positions of the set.</summary>
    public static List<long> SampleLengths(List<string> paths)
    {
        int count = Math.Min(SampleSize, paths.Count);
        var lengths = new List<long>(count);
        for (int i = 0; i < count; i++)
        {
            PlannedFile file = Plan((int)((long)i * paths.Count / count), paths[(int)((long)i * paths.Count / count)]);
            if (file.Error is null)
            {
                lengths.Add(file.Length);
            }
        }

        return lengths;
    }

    public static PlannedFile Plan(int index, string path)
    {
        try
        {
            FileStatus status = FileStatus.Get(path);
            Exception? error = status.Kind != FileKind.Regular ? ReadableFile.NotRegularFile(path, status.Kind) : null;
            return new PlannedFile(index, path, error is null ? status.Length : 0, status.DeviceId, error);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            return new PlannedFile(index, path, 0, 0, ex);
        }
    }
}
