using FastLoad.Reading;

namespace FastLoad.Planning;

/// <summary>Enumerates a <see cref="FileSet"/> and describes every file before any is read.</summary>
internal static class FilePlanner
{
    public static List<PlannedFile> Plan(FileSet files, CancellationToken cancellationToken)
    {
        var plan = new List<PlannedFile>();
        foreach (string path in files.EnumeratePaths())
        {
            cancellationToken.ThrowIfCancellationRequested();
            plan.Add(PlanOne(plan.Count, path));
        }

        return plan;
    }

    private static PlannedFile PlanOne(int index, string path)
    {
        try
        {
            FileStatus status = FileStatus.Get(path);
            Exception? error = status.Kind != FileKind.Regular ? ReadableFile.NotRegularFile(path, status.Kind)
                : status.Length > Array.MaxLength ? WholeFileReader.FileTooLarge(path, status.Length)
                : null;
            return new PlannedFile(index, path, error is null ? status.Length : 0, status.DeviceId, error);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            return new PlannedFile(index, path, 0, 0, ex);
        }
    }
}
