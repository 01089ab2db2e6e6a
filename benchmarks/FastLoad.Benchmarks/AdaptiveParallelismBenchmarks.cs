using BenchmarkDotNet.Attributes;

namespace FastLoad.Benchmarks;

/// <summary>
/// Does automatic parallelism find what a sweep of fixed depths finds? Three sets (10,000 small files, 200 files of
/// 4 MiB, 8 files of 256 MiB), each loaded cold at fixed depths 1-128, at the seeds' rule (cores x 4), and
/// automatically. Compare each set's "auto" row with its best fixed row (target: at least 95%).
/// </summary>
public class AdaptiveParallelismBenchmarks
{
    private IReadOnlyList<string> _paths = [];
    private FileLoader _loader = null!;

    private static readonly string[] AllSets = ["10000 x 2-128 KiB", "200 x 4 MiB", "8 x 256 MiB"];

    /// <summary>The file set.</summary>
    [ParamsSource(nameof(Sets))]
    public string Set { get; set; } = "";

    /// <summary>Every set, or those FASTLOAD_BENCH_SETS names (comma separated, e.g. "200 x 4 MiB").</summary>
    public static IEnumerable<string> Sets =>
        Environment.GetEnvironmentVariable("FASTLOAD_BENCH_SETS") is { Length: > 0 } chosen
            ? AllSets.Where(set => chosen.Split(',', StringSplitOptions.TrimEntries).Contains(set, StringComparer.Ordinal))
            : AllSets;

    /// <summary>A fixed depth, "cores x 4" (the seeds' advice), or "auto".</summary>
    [Params("1", "2", "4", "8", "16", "32", "64", "128", "cores x 4", "auto")]
    public string Depth { get; set; } = "";

    [GlobalSetup]
    public void Setup()
    {
        _paths = Set switch
        {
            "10000 x 2-128 KiB" => BenchmarkData.GetOrCreate("small-10000", 10_000, 2 * 1024, 128 * 1024),
            "200 x 4 MiB" => BenchmarkData.GetOrCreate("medium-200x4MiB", 200, 4 << 20, 4 << 20),
            "8 x 256 MiB" => BenchmarkData.GetOrCreate("large-8x256MiB", 8, 256 << 20, 256 << 20),
            _ => throw new ArgumentOutOfRangeException(nameof(Set), Set, "Unknown set."),
        };
        int? depth = Depth switch
        {
            "auto" => null,
            "cores x 4" => Environment.ProcessorCount * 4,
            _ => int.Parse(Depth, System.Globalization.CultureInfo.InvariantCulture),
        };
        _loader = new FileLoader(new FileLoaderOptions { MaxDegreeOfParallelism = depth });
    }

    [IterationSetup]
    public void EvictFiles() => BenchmarkData.EvictOrThrow(_paths);

    [Benchmark]
    public async Task<long> Load()
    {
        LoadSummary summary = await _loader.LoadAsync(FileSet.FromPaths(_paths), (_, _) => ValueTask.CompletedTask);
        return summary.ByteCount;
    }
}
