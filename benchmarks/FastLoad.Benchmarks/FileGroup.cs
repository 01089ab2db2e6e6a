namespace FastLoad.Benchmarks;

/// <summary>
/// A many-files group as in seed 001: sizes log-uniform from the minimum to 100x it. Decimal KB, as the seed's tables.
/// The groups of larger files hold fewer files by default, so that each stays near 0.5 GB on disk and the full run within 35 minutes (see docs/measurements/benchmarks.md).
/// </summary>
internal sealed record FileGroup(string Name, int MinSize, int DefaultCount)
{
    public const string FolderGroupName = "folder";

    public static IReadOnlyList<FileGroup> All { get; } =
    [
        new("1B", 1, 10_000),
        new("1KB", 1_000, 10_000),
        new("10KB", 10_000, 2_500),
        new("100KB", 100_000, 250),
        new("1MB", 1_000_000, 25),
    ];

    public int MaxSize => MinSize * 100;

    /// <summary>The file count after FASTLOAD_BENCH_SCALE, at least 2 so that parallel scenarios stay meaningful.</summary>
    public int Count => Math.Max(2, (int)Math.Round(DefaultCount * BenchmarkData.Scale));

    public static FileGroup Named(string name) => All.FirstOrDefault(group => group.Name == name)
        ?? throw new ArgumentException($"Unknown file group '{name}'; known: {string.Join(", ", All.Select(group => group.Name))}, {FolderGroupName}.", nameof(name));

    /// <summary>The paths of a group: generated, or the files of FASTLOAD_BENCH_FOLDER for the "folder" group.</summary>
    public static IReadOnlyList<string> Paths(string name)
    {
        if (name == FolderGroupName)
        {
            return BenchmarkData.FilesUnder(BenchmarkData.Folder
                ?? throw new InvalidOperationException("The folder group needs FASTLOAD_BENCH_FOLDER."));
        }

        FileGroup group = Named(name);
        return BenchmarkData.GetOrCreate(group.SetName, group.Count, group.MinSize, group.MaxSize);
    }

    public string SetName => $"many-{Name}-x{Count}";

    /// <summary>
    /// The groups to run: FASTLOAD_BENCH_GROUPS (comma separated) or all five, plus "folder" when FASTLOAD_BENCH_FOLDER is set.
    /// </summary>
    public static IEnumerable<string> Selected()
    {
        string? chosen = Environment.GetEnvironmentVariable("FASTLOAD_BENCH_GROUPS");
        IEnumerable<string> names = string.IsNullOrWhiteSpace(chosen)
            ? All.Select(group => group.Name)
            : chosen.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        return BenchmarkData.Folder is null ? names : names.Append(FolderGroupName).Distinct();
    }
}
