using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using FastLoad.Shared;

namespace FastLoad.Benchmarks;

/// <summary>
/// The 10,000 small-file set (2-128 KiB), cold: FastLoad on the loose files (baseline) against loading the same
/// files from their pack; and packing and unpacking it. Targets: the pack loads at least 1.5x as fast as the loose
/// files when the content compresses about 2:1, and at least as fast when it does not compress.
/// Throughput = the set's bytes (printed at setup) / the median time. CPU use of each iteration (cores busy on
/// average) is printed after it, to show decoding runs on every core.
/// </summary>
public class PackBenchmarks
{
    private IReadOnlyList<string> _paths = [];
    private string _pack = string.Empty;
    private string _scratch = string.Empty;
    private long _bytes;
    private TimeSpan _cpuAtStart;
    private long _startTimestamp;
    private string _unpackFolder = string.Empty;
    private int _unpacks;

    /// <summary>Files in the set (10,000 by default, as in seed 001).</summary>
    [Params(10_000)]
    public int FileCount { get; set; }

    /// <summary>Text-like content LZ4 halves, or random bytes it cannot shrink.</summary>
    [Params(true, false)]
    public bool Compressible { get; set; }

    [GlobalSetup]
    public void CreateFilesAndPack()
    {
        string name = $"small-{FileCount}{(Compressible ? "-text" : string.Empty)}";
        _paths = BenchmarkData.GetOrCreate(name, FileCount, 2 * 1024, 128 * 1024, Compressible);
        _pack = BenchmarkData.GetOrCreatePack(name, _paths);
        _scratch = Path.Combine(BenchmarkData.Root, $"{name}-scratch");

        _bytes = _paths.Sum(path => new FileInfo(path).Length);
        Console.WriteLine($"// {name}: {_bytes:N0} bytes in {_paths.Count:N0} files; pack {new FileInfo(_pack).Length:N0} bytes");
    }

    [IterationSetup]
    public void Evict()
    {
        BenchmarkData.EvictOrThrow([.. _paths, _pack]);
        _cpuAtStart = Process.GetCurrentProcess().TotalProcessorTime;
        _startTimestamp = Stopwatch.GetTimestamp();
    }

    /// <summary>
    /// Each unpack goes to a folder of its own, deleted only when the case ends: deleting the previous iteration's
    /// 10,000 files first made the next unpack several times slower in the kernel on the project VM (docs/measurements/benchmarks.md).
    /// </summary>
    [IterationSetup(Target = nameof(Unpack))]
    public void NewUnpackFolderAndEvict()
    {
        _unpackFolder = Path.Combine(_scratch, $"unpacked-{++_unpacks}");
        Evict();
    }

    [GlobalCleanup(Target = nameof(Unpack))]
    public void DeleteUnpackFolders()
    {
        foreach (string folder in Directory.Exists(_scratch) ? Directory.GetDirectories(_scratch, "unpacked*") : [])
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [IterationCleanup]
    public void ReportCpu()
    {
        double wall = Stopwatch.GetElapsedTime(_startTimestamp).TotalSeconds;
        double cpu = (Process.GetCurrentProcess().TotalProcessorTime - _cpuAtStart).TotalSeconds;
        Console.WriteLine($"// CPU use: {cpu / wall:F2} of {Environment.ProcessorCount} cores");
    }

    [Benchmark(Baseline = true, Description = "FastLoad, loose files")]
    public Task<long> LooseFiles() => LoadMethods.FastLoadAutomatic.Run(_paths, CancellationToken.None);

    [Benchmark(Description = "PackReader.LoadAllAsync")]
    public Task<long> FromPack() => LoadAllAsync(_pack, _bytes);

    /// <summary>Loads every entry of a pack, disposing each; throws unless they hold <paramref name="expectedBytes"/>.</summary>
    internal static async Task<long> LoadAllAsync(string pack, long expectedBytes)
    {
        long bytes = 0;
        await using PackReader reader = await PackReader.OpenAsync(pack);
        await foreach (LoadedFile entry in reader.LoadAllAsync())
        {
            using (entry)
            {
                bytes += entry.Length;
            }
        }

        return bytes == expectedBytes ? bytes : throw new InvalidOperationException($"The pack gave {bytes} bytes, the files hold {expectedBytes}.");
    }

    [Benchmark(Description = "PackWriter.CreateAsync (pack)")]
    public async Task<long> Pack()
    {
        string target = Path.Combine(_scratch, "repacked.fpk");
        Directory.CreateDirectory(_scratch);
        await PackWriter.CreateAsync(target, FileSet.FromPaths(_paths));
        return new FileInfo(target).Length;
    }

    [Benchmark(Description = "PackReader.ExtractAsync (unpack)")]
    public async Task<long> Unpack()
    {
        await using PackReader reader = await PackReader.OpenAsync(_pack);
        await reader.ExtractAsync(_unpackFolder);
        return reader.DataLength;
    }
}
