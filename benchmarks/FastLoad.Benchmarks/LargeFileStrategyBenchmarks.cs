using BenchmarkDotNet.Attributes;

namespace FastLoad.Benchmarks;

/// <summary>
/// One 1 GiB file, cold: what an application would write (File.ReadAllBytes; a FileStream loop with a 1 MiB buffer)
/// against FastLoad's large-file strategy (16 MiB positional reads: buffered, 4 contiguous ranges on their own descriptors; unbuffered, 4 in flight)
/// (O_DIRECT), and streamed in chunks within a 64 MiB budget. fio's sequential read (direct, 1 MiB, depth 8) on the
/// same file is the physical limit: docs/measurements/benchmarks.md puts them side by side.
/// </summary>
public class LargeFileStrategyBenchmarks
{
    private const int MiB = 1024 * 1024;

    private string _path = "";
    private byte[] _streamBuffer = [];
    private FileLoader _buffered = null!;
    private FileLoader _unbuffered = null!;
    private FileLoader _streaming = null!;

    [GlobalSetup]
    public void Setup()
    {
        _path = BenchmarkData.GetOrCreate("one-1GiB", 1, 1024 * MiB, 1024 * MiB)[0];
        _streamBuffer = new byte[MiB];
        _buffered = new FileLoader(new FileLoaderOptions { Buffering = FileBuffering.Buffered, MemoryBudget = 2048L * MiB });
        _unbuffered = new FileLoader(new FileLoaderOptions { Buffering = FileBuffering.Unbuffered, MemoryBudget = 2048L * MiB });
        _streaming = new FileLoader(new FileLoaderOptions { MemoryBudget = 64 * MiB });
    }

    [IterationSetup]
    public void EvictFile() => BenchmarkData.EvictOrThrow([_path]);

    [Benchmark(Baseline = true, Description = "File.ReadAllBytes")]
    public long ReadAllBytes() => File.ReadAllBytes(_path).Length;

    [Benchmark(Description = "FileStream loop, 1 MiB reads")]
    public long FileStreamLoop()
    {
        using var stream = new FileStream(_path, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 0);
        long total = 0;
        int read;
        while ((read = stream.Read(_streamBuffer, 0, _streamBuffer.Length)) > 0)
        {
            total += read;
        }

        return total;
    }

    [Benchmark(Description = "FastLoad, buffered, 4 ranges x 16 MiB")]
    public Task<long> FastLoadBuffered() => LoadAsync(_buffered);

    [Benchmark(Description = "FastLoad, unbuffered (O_DIRECT)")]
    public Task<long> FastLoadUnbuffered() => LoadAsync(_unbuffered);

    [Benchmark(Description = "FastLoad ReadChunksAsync, 64 MiB budget")]
    public async Task<long> FastLoadChunks()
    {
        long total = 0;
        await foreach (FileChunk chunk in _streaming.ReadChunksAsync(_path))
        {
            using (chunk)
            {
                total += chunk.Length;
            }
        }

        return total;
    }

    private async Task<long> LoadAsync(FileLoader loader)
    {
        long total = 0;
        await foreach (LoadedFile file in loader.LoadAsync(FileSet.FromPaths([_path])))
        {
            using (file)
            {
                total += file.Length;
            }
        }

        return total;
    }
}
