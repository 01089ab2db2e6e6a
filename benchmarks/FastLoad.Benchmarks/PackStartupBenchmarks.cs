using BenchmarkDotNet.Attributes;
using FastLoad.Shared;

namespace FastLoad.Benchmarks;

/// <summary>
/// A pack's first load against the same files loose, cold and warm: the start-up case of issue 24. Meant for a fresh
/// process per measurement, where the JIT has compiled none of the load's code yet:
/// <c>FASTLOAD_BENCH_FRESH_PROCESS=1 dotnet run -c Release --project benchmarks/FastLoad.Benchmarks -- --filter '*PackStartup*'</c>
/// (one launch per iteration). The set is FASTLOAD_BENCH_FOLDER (a real tree such as /usr/include), else the
/// 10,000-file text-like set of <see cref="PackBenchmarks"/>; its pack is written once beside the generated sets.
/// </summary>
public class PackStartupBenchmarks
{
    private IReadOnlyList<string> _paths = [];
    private string _pack = string.Empty;
    private long _bytes;

    /// <summary>Cold: every file (and the pack) evicted before each load. Warm: each read once before.</summary>
    [Params("cold", "warm")]
    public string Cache { get; set; } = "cold";

    [GlobalSetup]
    public void FindFilesAndPack()
    {
        string name = BenchmarkData.Folder is { } folder ? $"folder-{Path.GetFileName(Path.TrimEndingDirectorySeparator(folder))}" : "small-10000-text";
        _paths = BenchmarkData.Folder is { } root ? BenchmarkData.FilesUnder(root) : BenchmarkData.GetOrCreate(name, 10_000, 2 * 1024, 128 * 1024, compressible: true);
        _pack = BenchmarkData.GetOrCreatePack(name, _paths);

        _bytes = _paths.Sum(path => new FileInfo(path).Length);
    }

    [IterationSetup]
    public void EvictOrWarm()
    {
        if (Cache == "cold")
        {
            BenchmarkData.EvictOrThrow([.. _paths, _pack]);
            return;
        }

        // Read outside the measured load: the page cache holds the files, the process's own code stays uncompiled.
        byte[] buffer = new byte[1 << 20];
        foreach (string path in _paths.Append(_pack))
        {
            using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, 1, FileOptions.SequentialScan);
            while (file.Read(buffer) > 0)
            {
            }
        }
    }

    [Benchmark(Baseline = true, Description = "FastLoad, loose files")]
    public Task<long> LooseFiles() => LoadMethods.FastLoadAutomatic.Run(_paths, CancellationToken.None);

    [Benchmark(Description = "PackReader.LoadAllAsync")]
    public Task<long> FromPack() => PackBenchmarks.LoadAllAsync(_pack, _bytes);
}
