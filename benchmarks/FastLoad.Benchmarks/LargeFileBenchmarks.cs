using System.IO.MemoryMappedFiles;
using BenchmarkDotNet.Attributes;
using FastLoad.Shared;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Benchmarks;

/// <summary>
/// Seed 002, cold: one large file into one buffer (allocated once, as the seed's g_buffer), by each of the seed's ways.
/// Every scenario returns the bytes it placed in the buffer.
/// </summary>
public class LargeFileBenchmarks : IWorkloadSource
{
    private const int WindowSize = 128 * 1024;
    private const int RequestSize = 1 << 20;
    private string _path = "";
    private string _compressedPath = "";
    private byte[] _destination = [];

    /// <summary>The file size in MiB: 100 (the seed's) and 1024.</summary>
    [Params(100, 1024)]
    public int SizeMiB { get; set; } = 100;

    [GlobalSetup]
    public void CreateFile()
    {
        _path = LargeFile.GetOrCreate(SizeMiB);
        _compressedPath = Lz4File.GetOrCreate(_path);
        _destination = GC.AllocateUninitializedArray<byte>(SizeMiB << 20);
    }

    [IterationSetup]
    public void EvictFile() => BenchmarkData.EvictOrThrow([_path, _compressedPath]);

    /// <summary>The fread analogue: a FileStream read in a loop until the end.</summary>
    [Benchmark(Baseline = true)]
    public long FileStreamLoop()
    {
        using var stream = new FileStream(_path, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 4096);
        int total = 0;
        int read;
        while ((read = stream.Read(_destination, total, _destination.Length - total)) > 0)
        {
            total += read;
        }

        return total;
    }

    /// <summary>One RandomAccess.Read of the whole file (looped only on short reads).</summary>
    [Benchmark]
    public long RandomAccessRead() => FileReads.ReadWholeFile(_path, _destination);

    /// <summary>
    /// File.ReadAllBytes: the same read into a new array, as any loader that hands the bytes over reads (FastLoad
    /// too). The first write to each of its pages costs a page fault, which the scenarios reusing one buffer never pay.
    /// </summary>
    [Benchmark]
    public long FileReadAllBytes() => File.ReadAllBytes(_path).Length;

    /// <summary>The seed's memory-mapped copy: a 128 KiB view at a time.</summary>
    [Benchmark]
    public long MemoryMappedWindows()
    {
        using MemoryMappedFile map = MemoryMappedFile.CreateFromFile(_path, FileMode.Open, null, 0, MemoryMappedFileAccess.Read);
        long total = 0;
        for (long offset = 0; offset < _destination.Length; offset += WindowSize)
        {
            int size = (int)Math.Min(WindowSize, _destination.Length - offset);
            using MemoryMappedViewAccessor view = map.CreateViewAccessor(offset, size, MemoryMappedFileAccess.Read);
            total += CopyFromView(view, _destination.AsSpan((int)offset, size));
        }

        return total;
    }

    /// <summary>One view over the whole file, copied once (a commenter's suggestion on the seed).</summary>
    [Benchmark]
    public long MemoryMappedOneView()
    {
        using MemoryMappedFile map = MemoryMappedFile.CreateFromFile(_path, FileMode.Open, null, 0, MemoryMappedFileAccess.Read);
        using MemoryMappedViewAccessor view = map.CreateViewAccessor(0, _destination.Length, MemoryMappedFileAccess.Read);
        return CopyFromView(view, _destination);
    }

    /// <summary>Async reads with N requests in flight, one method per N (the seed's best was 8).</summary>
    [Benchmark]
    public Task<long> AsyncInFlight1() => AsyncInFlightCore(1);

    [Benchmark]
    public Task<long> AsyncInFlight2() => AsyncInFlightCore(2);

    [Benchmark]
    public Task<long> AsyncInFlight4() => AsyncInFlightCore(4);

    [Benchmark]
    public Task<long> AsyncInFlight8() => AsyncInFlightCore(8);

    [Benchmark]
    public Task<long> AsyncInFlight16() => AsyncInFlightCore(16);

    /// <summary>N reads of 1 MiB in flight at all times (the seed's best was 8), straight into the buffer.</summary>
    private async Task<long> AsyncInFlightCore(int requestsInFlight)
    {
        using SafeFileHandle handle = File.OpenHandle(_path, options: FileOptions.Asynchronous);
        var inFlight = new Queue<ValueTask<int>>(requestsInFlight);
        long total = 0;
        for (long offset = 0; offset < _destination.Length; offset += RequestSize)
        {
            if (inFlight.Count == requestsInFlight)
            {
                total += await inFlight.Dequeue();
            }

            int size = (int)Math.Min(RequestSize, _destination.Length - offset);
            inFlight.Enqueue(FileReads.ReadFullyAsync(handle, _destination.AsMemory((int)offset, size), offset));
        }

        while (inFlight.Count > 0)
        {
            total += await inFlight.Dequeue();
        }

        return total;
    }

    // Unbuffered (O_DIRECT) reads are measured on the 1 GiB file in LargeFileStrategyBenchmarks, FastLoad's strategy
    // against File.ReadAllBytes; FastLoadAutomatic here takes them where its defaults do (from 1 GiB).

    /// <summary>The LZ4 copy read sequentially and decoded block by block on the thread pool while reading (seed 002's compression).</summary>
    [Benchmark]
    public long Lz4CompressedCopy() => Lz4File.ReadDecoding(_compressedPath, _destination);

    /// <summary>FastLoad with automatic settings, given the one file (it returns its own pooled buffer).</summary>
    [Benchmark]
    public Task<long> FastLoadAutomatic() => LoadMethods.FastLoadAutomatic.Run([_path], CancellationToken.None);

    Workload IWorkloadSource.DescribeWorkload()
    {
        string path = LargeFile.GetOrCreate(SizeMiB);
        long length = new FileInfo(path).Length;
        return new Workload(length, 1, FioJob.ForFiles(path, [length], blockSize: RequestSize, ioDepth: FioJob.DefaultIoDepth));
    }

    private static unsafe long CopyFromView(MemoryMappedViewAccessor view, Span<byte> destination)
    {
        byte* pointer = null;
        view.SafeMemoryMappedViewHandle.AcquirePointer(ref pointer);
        try
        {
            new ReadOnlySpan<byte>(pointer + view.PointerOffset, destination.Length).CopyTo(destination);
            return destination.Length;
        }
        finally
        {
            view.SafeMemoryMappedViewHandle.ReleasePointer();
        }
    }
}
