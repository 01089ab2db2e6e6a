using System.Buffers;
using FastLoad.Engine;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reading;

/// <summary>Large files: several reads in flight, buffered, unbuffered and mapped, around every boundary.</summary>
public class LargeFileTests : TempDirectoryTestBase
{
    private const int MiB = 1024 * 1024;
    private const int Threshold = 16 * MiB;
    private const int Chunk = 16 * MiB;

    public static TheoryData<int, FileBuffering> SizesAndModes()
    {
        var data = new TheoryData<int, FileBuffering>();
        int[] sizes =
        [
            Threshold - 1, Threshold, Threshold + 1,           // one read vs. chunks
            Threshold + Chunk - 1, Threshold + Chunk + 1,      // a chunk boundary +-1
            Threshold + 4095, Threshold + 4097,                // the unbuffered alignment +-1
            (5 * Chunk) + 3,                                   // buffered: 3 ranges of at least 32 MiB, 2 chunks each
            (8 * Chunk) + 3,                                   // buffered: 4 ranges of 3 chunks, the last one empty
        ];
        foreach (int size in sizes)
        {
            foreach (FileBuffering mode in Enum.GetValues<FileBuffering>())
            {
                data.Add(size, mode);
            }
        }

        return data;
    }

    private static FileLoader Loader(FileBuffering buffering, ArrayPool<byte>? pool = null, bool mapped = false, Microsoft.Extensions.Logging.ILoggerFactory? logging = null) =>
        new(new FileLoaderOptions { Buffering = buffering, BufferPool = pool, UseMemoryMapping = mapped }, logging);

    [Theory]
    [MemberData(nameof(SizesAndModes))]
    public async Task LoadAsync_LargeFile_ReturnsExactContents(int size, FileBuffering buffering)
    {
        byte[] expected = Contents(size, seed: size);
        string path = WriteFile("large.bin", expected);
        var pool = new CountingPool();

        var results = await Loads.CollectAsync(Loader(buffering, pool), FileSet.FromPaths([path]));

        Assert.Equal(expected, Assert.Single(results).Data);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task LoadAsync_MemoryMapped_ReturnsExactContentsUntilDisposed()
    {
        byte[] expected = Contents(Threshold + 12345, seed: 3);
        string path = WriteFile("large.bin", expected);

        await foreach (LoadedFile file in Loader(FileBuffering.Auto, mapped: true).LoadAsync(FileSet.FromPaths([path])))
        {
            using (file)
            {
                Assert.True(file.Data.Span.SequenceEqual(expected));
                Assert.Equal(expected.Length, file.Sequence.Length);
            }

            Assert.Throws<ObjectDisposedException>(() => file.Data);
        }
    }

    [NotUnderWineFact("the refusal is simulated, the same on every OS, and the three buffered reads take 46 s there")]
    public async Task LoadAsync_UnbufferedRefusedByTheFileSystem_FallsBackToBufferedAndLogsOnce()
    {
        // tmpfs refused O_DIRECT before Linux 6.6 and accepts it since, so the refusal is simulated.
        var expected = Enumerable.Range(0, 3).Select(i => Contents(Threshold + i, seed: i)).ToList();
        var paths = expected.Select((bytes, i) => WriteFile($"f{i}.bin", bytes)).ToList();
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);
        var options = new FileLoaderOptions { Buffering = FileBuffering.Unbuffered, Ordering = LoadOrdering.Input };
        var hooks = new LoadTestHooks { SimulateUnbufferedRefusal = true };

        var results = await Loads.CollectAsync(new FileLoader(options, hooks, loggerFactory), FileSet.FromPaths(paths));

        Assert.Equal(expected, results.Select(r => r.Data));
        var fallback = Assert.Single(logs.GetSnapshot(), e => e.Id.Id == FastLoadEventId.UnbufferedFallback);
        Assert.Contains(Root, fallback.Message);
    }

    [LinuxFact("/dev/shm, a tmpfs, which refuses O_DIRECT")]
    public async Task LoadAsync_UnbufferedOnTmpfs_ReturnsExactContents()
    {
        Assert.True(Directory.Exists("/dev/shm"));
        string path = Path.Combine("/dev/shm", $"fastload-{Guid.NewGuid():N}.bin");
        byte[] expected = Contents(Threshold + 777, seed: 5);
        File.WriteAllBytes(path, expected);
        try
        {
            var results = await Loads.CollectAsync(Loader(FileBuffering.Unbuffered), FileSet.FromPaths([path]));

            Assert.Equal(expected, Assert.Single(results).Data);
        }
        finally
        {
            File.Delete(path);
        }
    }

    // Unbuffered reads go to native memory, not the pool, so the pool cannot stop them mid-file.
    [Theory]
    [InlineData(FileBuffering.Buffered)]
    [InlineData(FileBuffering.Auto)]
    public async Task LoadAsync_CanceledMidFile_ThrowsAndReturnsEveryBuffer(FileBuffering buffering)
    {
        string path = WriteFile("large.bin", 64 * MiB);
        var pool = new CountingPool();
        using var cancel = new CancellationTokenSource();
        pool.OnRent = length =>
        {
            if (length >= Threshold)
            {
                cancel.Cancel(); // The file is open and its buffer about to be filled.
            }
        };
        var loader = new FileLoader(new FileLoaderOptions { Buffering = buffering, BufferPool = pool });

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => Loads.CollectAsync(loader, FileSet.FromPaths([path]), cancel.Token));

        pool.AssertAllReturned();
    }

    public static TheoryData<long, FileBuffering> Over2GiB() => new()
    {
        { Array.MaxLength, FileBuffering.Buffered },
        { (long)Array.MaxLength + 1, FileBuffering.Buffered },
        { (long)Array.MaxLength + 1, FileBuffering.Unbuffered },
    };

    [Theory]
    [MemberData(nameof(Over2GiB))]
    public async Task LoadAsync_SparseFileAroundTheArrayLimit_LoadsWholeThroughSequence(long size, FileBuffering buffering)
    {
        // Sparse: zeros except markers at the start, around the 1 GiB segment boundary and at the end.
        string path = Path.Combine(Root, "huge.bin");
        long[] markers = [0, (1L << 30) - 1, 1L << 30, size - 1];
        using (var stream = new FileStream(path, FileMode.CreateNew))
        {
            stream.SetLength(size);
            foreach (long offset in markers)
            {
                stream.Position = offset;
                stream.WriteByte((byte)(1 + (offset % 251)));
            }
        }

        var pool = new CountingPool();
        await foreach (LoadedFile file in Loader(buffering, pool).LoadAsync(FileSet.FromPaths([path])))
        {
            using (file)
            {
                Assert.Null(file.Error);
                Assert.Equal(size, file.Length);
                ReadOnlySequence<byte> sequence = file.Sequence;
                Assert.Equal(size, sequence.Length);
                foreach (long offset in markers)
                {
                    Assert.Equal((byte)(1 + (offset % 251)), sequence.Slice(offset, 1).FirstSpan[0]);
                }

                Assert.Equal(0, sequence.Slice(12345, 1).FirstSpan[0]);
                if (size > Array.MaxLength)
                {
                    var ex = Assert.Throws<InvalidOperationException>(() => file.Data);
                    Assert.Contains("Sequence", ex.Message);
                }
                else
                {
                    Assert.Equal(size, file.Data.Length);
                }
            }
        }

        pool.AssertAllReturned();
    }

    [Theory]
    [InlineData(FileBuffering.Auto)]
    [InlineData(FileBuffering.Unbuffered)]
    public async Task LoadAsync_FileLargerThanTheMemoryAvailable_FailsNamingItBeforeAllocatingAndLoadsTheOthers(FileBuffering buffering)
    {
        // The process "can get" 80 MiB; the sparse file is 100 MiB: refused before its buffer exists.
        string large = Path.Combine(Root, "large.bin");
        using (var stream = new FileStream(large, FileMode.CreateNew))
        {
            stream.SetLength(100L * MiB);
        }

        byte[] small = Contents(70_000, seed: 8);
        string smallPath = WriteFile("small.bin", small);
        var pool = new CountingPool();
        var loader = new FileLoader(
            new FileLoaderOptions { Buffering = buffering, ErrorHandling = LoadErrorHandling.Collect, Ordering = LoadOrdering.Input, BufferPool = pool },
            new LoadTestHooks { AvailableMemory = () => 80L * MiB });

        var results = await Loads.CollectAsync(loader, FileSet.FromPaths([large, smallPath]));

        var error = Assert.IsType<InsufficientMemoryException>(results[0].Error);
        Assert.Contains(large, error.Message);
        Assert.Contains("104,857,600 bytes", error.Message);
        Assert.Equal(small, results[1].Data);
        Assert.InRange(pool.PeakRequestedOutstanding, 0, small.Length); // Nothing was asked for the large file.
        pool.AssertAllReturned();
    }
}
