using BenchmarkDotNet.Attributes;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Benchmarks;

/// <summary>
/// Seed 004, cold: reads of 4 B to 10 KB from a large file, at random offsets or one after another (each read starts
/// 10 bytes past the end of the previous one, as in the seed), one at a time. The ops/s column is reads per second.
/// </summary>
public class ReadSizeBenchmarks : IWorkloadSource
{
    /// <summary>Reads per invocation: enough for a stable rate, few enough that random reads take a fraction of a second.</summary>
    public const int ReadCount = 4096;

    private const int Gap = 10;
    private string _path = "";
    private long[] _randomOffsets = [];
    private long _lastOffset;
    private byte[] _buffer = [];

    [Params(1024)]
    public int FileMiB { get; set; } = 1024;

    [Params(4, 12, 28, 100, 1000, 4096, 10_000)]
    public int ReadSize { get; set; } = 4;

    [GlobalSetup]
    public void Open()
    {
        _path = LargeFile.GetOrCreate(FileMiB);
        long length = new FileInfo(_path).Length;
        var random = new Random(42);
        _lastOffset = length - ReadSize;
        _randomOffsets = [.. Enumerable.Range(0, ReadCount).Select(_ => random.NextInt64(_lastOffset))];
        _buffer = new byte[ReadSize];
    }

    [IterationSetup]
    public void EvictFile() => BenchmarkData.EvictOrThrow([_path]);

    [Benchmark(Baseline = true)]
    public long RandomReads()
    {
        using SafeFileHandle handle = File.OpenHandle(_path);
        long total = 0;
        foreach (long offset in _randomOffsets)
        {
            total += FileReads.ReadFully(handle, _buffer, offset);
        }

        return total;
    }

    [Benchmark]
    public long SequentialReads()
    {
        using SafeFileHandle handle = File.OpenHandle(_path);
        long total = 0;
        for (int i = 0; i < ReadCount; i++)
        {
            // Wraps only on a file too small for the run (the tests' 1 MiB file); the 1 GiB file never wraps.
            total += FileReads.ReadFully(handle, _buffer, (long)i * (ReadSize + Gap) % _lastOffset);
        }

        return total;
    }

    /// <summary>fio's 4 KiB random reads at depth 32 on the same file: every read here costs at least one such I/O.</summary>
    Workload IWorkloadSource.DescribeWorkload()
    {
        string path = LargeFile.GetOrCreate(FileMiB);
        long iosPerRead = (ReadSize + 4095) / 4096;
        return new Workload((long)ReadCount * ReadSize, ReadCount, new FioJob(path, "randread", 4096, FioJob.DefaultIoDepth, ReadCount * iosPerRead));
    }
}
