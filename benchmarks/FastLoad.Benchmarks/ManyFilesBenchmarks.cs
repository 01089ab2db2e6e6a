using System.Threading.Tasks.Dataflow;
using BenchmarkDotNet.Attributes;
using FastLoad.Shared;

namespace FastLoad.Benchmarks;

/// <summary>
/// Seed 001, cold: loading many files of one size group. The seed's scenarios under its names, then today's idioms
/// and FastLoad. Every scenario returns the bytes it read, so that none can silently do less work.
/// </summary>
public class ManyFilesBenchmarks : IWorkloadSource
{
    private IReadOnlyList<string> _paths = [];

    /// <summary>The size group: minimum size 1B, 1KB, 10KB, 100KB or 1MB (up to 100x that), or "folder" (FASTLOAD_BENCH_FOLDER).</summary>
    [ParamsSource(nameof(Groups))]
    public string Group { get; set; } = "1KB";

    public static IEnumerable<string> Groups => FileGroup.Selected();

    [GlobalSetup]
    public void CreateFiles() => _paths = FileGroup.Paths(Group);

    [IterationSetup]
    public void EvictFiles() => BenchmarkData.EvictOrThrow(_paths);

    /// <summary>The loop an application would write: one file after another.</summary>
    [Benchmark(Baseline = true)]
    public Task<long> Sequential() => LoadMethods.Sequential.Run(_paths, CancellationToken.None);

    [Benchmark]
    public long SyncAsParallel() => _paths.AsParallel().Select(SeedCopy.Copy).Sum();

    [Benchmark]
    public long ReadAllAsParallel() => _paths.AsParallel().Select(path => (long)File.ReadAllBytes(path).Length).Sum();

    /// <summary>Every file started at once from PLINQ, then Task.WhenAll.</summary>
    [Benchmark]
    public async Task<long> Async() => (await Task.WhenAll(_paths.AsParallel().Select(SeedCopy.CopyAsync).ToArray())).Sum();

    /// <summary>Every file started at once from one thread, then Task.WhenAll.</summary>
    [Benchmark]
    public async Task<long> Async2() => (await Task.WhenAll(_paths.Select(SeedCopy.CopyAsync).ToArray())).Sum();

    /// <summary>One thread per file, all started, then joined.</summary>
    [Benchmark]
    public long NewThread() => OneThreadPerFile.Run(_paths, (_, path) => SeedCopy.Copy(path));

    /// <summary>The seed's AsyncWithMaxParallelCountN: one method per N, so that each gets a ratio to the baseline (arguments would not).</summary>
    [Benchmark]
    public Task<long> AsyncWithMaxParallelCount4() => AsyncWithMaxParallelCountCore(4);

    [Benchmark]
    public Task<long> AsyncWithMaxParallelCount8() => AsyncWithMaxParallelCountCore(8);

    [Benchmark]
    public Task<long> AsyncWithMaxParallelCount16() => AsyncWithMaxParallelCountCore(16);

    [Benchmark]
    public Task<long> AsyncWithMaxParallelCount24() => AsyncWithMaxParallelCountCore(24);

    [Benchmark]
    public Task<long> AsyncWithMaxParallelCount32() => AsyncWithMaxParallelCountCore(32);

    [Benchmark]
    public Task<long> AsyncWithMaxParallelCount64() => AsyncWithMaxParallelCountCore(64);

    [Benchmark]
    public Task<long> AsyncWithMaxParallelCount128() => AsyncWithMaxParallelCountCore(128);

    [Benchmark]
    public Task<long> AsyncWithMaxParallelCount256() => AsyncWithMaxParallelCountCore(256);

    /// <summary>An ActionBlock with MaxDegreeOfParallelism = N around the async copy.</summary>
    private async Task<long> AsyncWithMaxParallelCountCore(int degreeOfParallelism)
    {
        long total = 0;
        var block = new ActionBlock<string>(
            async path => Interlocked.Add(ref total, await SeedCopy.CopyAsync(path)),
            new ExecutionDataflowBlockOptions { MaxDegreeOfParallelism = degreeOfParallelism });
        foreach (string path in _paths)
        {
            block.Post(path);
        }

        block.Complete();
        await block.Completion;
        return total;
    }

    [Benchmark]
    public Task<long> ParallelForEachAsync() => LoadMethods.ParallelForEachDefault.Run(_paths, CancellationToken.None);

    /// <summary>Parallel.ForEachAsync with a tuned MaxDegreeOfParallelism, one method per value.</summary>
    [Benchmark]
    public Task<long> ParallelForEachAsyncTuned8() => ParallelForEachAsyncTunedCore(8);

    [Benchmark]
    public Task<long> ParallelForEachAsyncTuned32() => ParallelForEachAsyncTunedCore(32);

    [Benchmark]
    public Task<long> ParallelForEachAsyncTuned128() => ParallelForEachAsyncTunedCore(128);

    /// <summary>Parallel.ForEachAsync + File.ReadAllBytesAsync with MaxDegreeOfParallelism set, as a user tuning it would.</summary>
    private async Task<long> ParallelForEachAsyncTunedCore(int degreeOfParallelism)
    {
        long total = 0;
        await Parallel.ForEachAsync(_paths, new ParallelOptions { MaxDegreeOfParallelism = degreeOfParallelism }, async (path, token) =>
            Interlocked.Add(ref total, (await File.ReadAllBytesAsync(path, token)).Length));
        return total;
    }

    [Benchmark]
    public Task<long> FastLoadAutomatic() => LoadMethods.FastLoadAutomatic.Run(_paths, CancellationToken.None);

    [Benchmark]
    public Task<long> FastLoadThreadPool() => LoadMethods.FastLoadOnThreadPool.Run(_paths, CancellationToken.None);

    Workload IWorkloadSource.DescribeWorkload()
    {
        IReadOnlyList<string> paths = FileGroup.Paths(Group);
        long[] sizes = [.. paths.Select(path => new FileInfo(path).Length)];
        string target = Group == FileGroup.FolderGroupName ? BenchmarkData.Folder! : BenchmarkData.DirectoryOf(FileGroup.Named(Group).SetName);
        return new Workload(sizes.Sum(), sizes.Length, FioJob.ForFiles(target, sizes));
    }
}
