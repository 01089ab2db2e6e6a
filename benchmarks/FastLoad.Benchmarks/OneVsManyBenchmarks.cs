using BenchmarkDotNet.Attributes;
using FastLoad.Shared;

namespace FastLoad.Benchmarks;

/// <summary>
/// Seed 000, cold: the same 64 MiB as 1 file, 16 x 4 MiB, 64 x 1 MiB or 512 x 128 KiB, read at a queue depth equal to
/// the file count (one reader per file), against one file after another, and FastLoad pinned to the file count and
/// automatic. The seed's scenarios read into buffers allocated once; File.ReadAllBytes allocates, as FastLoad does.
/// </summary>
public class OneVsManyBenchmarks : IWorkloadSource
{
    private IReadOnlyList<string> _paths = [];
    private byte[][] _buffers = [];
    private LoadMethod _fastLoad = null!;

    [Params(1, 16, 64, 512)]
    public int FileCount { get; set; } = 16;

    [Params(64)]
    public int TotalMiB { get; set; } = 64;

    private int FileSize => (int)((long)TotalMiB * 1024 * 1024 / FileCount);

    [GlobalSetup]
    public void CreateFiles()
    {
        _paths = Paths();
        _buffers = [.. _paths.Select(_ => GC.AllocateUninitializedArray<byte>(FileSize))];
        _fastLoad = LoadMethods.FastLoad(
            "fastload-at-count",
            "FastLoad at the file count",
            () => new FileLoaderOptions { MaxDegreeOfParallelism = FileCount, MemoryBudget = 2L * TotalMiB << 20 });
    }

    [IterationSetup]
    public void EvictFiles() => BenchmarkData.EvictOrThrow(_paths);

    [Benchmark(Baseline = true)]
    public long OneAfterAnother() => _paths.Select((path, index) => (long)FileReads.ReadWholeFile(path, _buffers[index])).Sum();

    /// <summary>File.ReadAllBytes, one file after another: new arrays, as FastLoad hands over (see LargeFileBenchmarks).</summary>
    [Benchmark]
    public long ReadAllBytesOneAfterAnother() => _paths.Sum(path => (long)File.ReadAllBytes(path).Length);

    /// <summary>One thread per file, all reading at once: queue depth = file count, as the seed's fio runs.</summary>
    [Benchmark]
    public long QueueDepthEqualsFileCount() => OneThreadPerFile.Run(_paths, (index, path) => FileReads.ReadWholeFile(path, _buffers[index]));

    /// <summary>FastLoad with MaxDegreeOfParallelism pinned to the file count.</summary>
    [Benchmark]
    public Task<long> FastLoadAtFileCount() => _fastLoad.Run(_paths, CancellationToken.None);

    /// <summary>FastLoad with automatic settings: the depth it picks for the layout, against the seed's two fixed ones.</summary>
    [Benchmark]
    public Task<long> FastLoadAutomatic() => LoadMethods.FastLoadAutomatic.Run(_paths, CancellationToken.None);

    Workload IWorkloadSource.DescribeWorkload()
    {
        IReadOnlyList<string> paths = Paths();
        long[] sizes = [.. paths.Select(path => new FileInfo(path).Length)];
        return new Workload(sizes.Sum(), sizes.Length, FioJob.ForFiles(BenchmarkData.DirectoryOf(SetName), sizes, FileSize, FileCount));
    }

    private string SetName => $"layout-{FileCount}x{FileSize}";

    private IReadOnlyList<string> Paths() => BenchmarkData.GetOrCreate(SetName, FileCount, FileSize, FileSize);
}
