using BenchmarkDotNet.Attributes;
using FastLoad.Shared;

namespace FastLoad.Benchmarks;

/// <summary>
/// Loading a set of small files, cold: the sequential loop an application would write (baseline),
/// Parallel.ForEachAsync with default settings, and FastLoad. Each returns the bytes it read, so that no variant can
/// silently do less work.
/// </summary>
public class ManyFilesBenchmarks
{
    private IReadOnlyList<string> _paths = [];

    /// <summary>Files in the set (10,000 by default, as in seed 001).</summary>
    [Params(10_000)]
    public int FileCount { get; set; }

    [GlobalSetup]
    public void CreateFiles() => _paths = BenchmarkData.GetOrCreate($"small-{FileCount}", FileCount, 2 * 1024, 128 * 1024);

    [IterationSetup]
    public void EvictFiles() => BenchmarkData.EvictOrThrow(_paths);

    [Benchmark(Baseline = true, Description = "Sequential File.ReadAllBytes")]
    public Task<long> Sequential() => LoadMethods.Sequential.Run(_paths, CancellationToken.None);

    [Benchmark(Description = "Parallel.ForEachAsync + ReadAllBytesAsync")]
    public Task<long> ParallelForEachAsync() => LoadMethods.ParallelForEachDefault.Run(_paths, CancellationToken.None);

    [Benchmark(Description = "FastLoad automatic")]
    public Task<long> FastLoadAutomatic() => LoadMethods.FastLoadAutomatic.Run(_paths, CancellationToken.None);

    [Benchmark(Description = "FastLoad automatic, thread pool")]
    public Task<long> FastLoadThreadPool() => LoadMethods.FastLoadOnThreadPool.Run(_paths, CancellationToken.None);
}
