using FastLoad.Engine;
using FastLoad.Shared;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reading;

public class ChunkStreamingTests : TempDirectoryTestBase
{
    private const int ChunkSize = 64 * 1024;

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(ChunkSize - 1)]
    [InlineData(ChunkSize)]
    [InlineData(ChunkSize + 1)]
    [InlineData((37 * ChunkSize) + 123)]
    public async Task ReadChunksAsync_FileOfSize_StreamsItInOrderByteForByte(int size)
    {
        byte[] expected = Contents(size, seed: size);
        string path = WriteFile("file.bin", expected);
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool, MemoryBudget = 8 * ChunkSize });
        var received = new List<byte>();
        long nextOffset = 0;

        await foreach (FileChunk chunk in loader.ReadChunksAsync(path, ChunkSize))
        {
            using (chunk)
            {
                Assert.Equal(nextOffset, chunk.Offset);
                Assert.True(chunk.Length is > 0 and <= ChunkSize);
                received.AddRange(chunk.Data.ToArray());
                nextOffset += chunk.Length;
            }
        }

        Assert.Equal(expected, received);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task ReadChunksAsync_LargeFile_MemoryStaysWithinTheReadAhead()
    {
        string path = WriteFile("file.bin", 200 * ChunkSize);
        var pool = new CountingPool();

        // Budget of 4 chunks: read-ahead 4, plus the chunk the consumer holds.
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool, MemoryBudget = 4 * ChunkSize });
        await foreach (FileChunk chunk in loader.ReadChunksAsync(path, ChunkSize))
        {
            chunk.Dispose();
        }

        Assert.InRange(pool.PeakRequestedOutstanding, ChunkSize, 5 * ChunkSize);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task ReadChunksAsync_BreakEarly_ReturnsEveryBuffer()
    {
        string path = WriteFile("file.bin", 100 * ChunkSize);
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool });

        await foreach (FileChunk chunk in loader.ReadChunksAsync(path, ChunkSize))
        {
            chunk.Dispose();
            if (chunk.Offset >= 10 * ChunkSize)
            {
                break;
            }
        }

        pool.AssertAllReturned();
    }

    [Fact]
    public async Task ReadChunksAsync_Canceled_ThrowsAndReturnsEveryBuffer()
    {
        string path = WriteFile("file.bin", 100 * ChunkSize);
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool });
        using var cancel = new CancellationTokenSource();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () =>
        {
            await foreach (FileChunk chunk in loader.ReadChunksAsync(path, ChunkSize, cancel.Token))
            {
                chunk.Dispose();
                if (chunk.Offset == 5 * ChunkSize)
                {
                    await cancel.CancelAsync();
                }
            }
        });

        pool.AssertAllReturned();
    }

    [Fact]
    public async Task ReadChunksAsync_FileTruncatedWhileStreaming_EndsWithTheBytesItStillHas()
    {
        byte[] original = Contents(50 * ChunkSize, seed: 9);
        string path = WriteFile("file.bin", original);
        var loader = new FileLoader(new FileLoaderOptions { MemoryBudget = 2 * ChunkSize });
        var received = new List<byte>();

        await foreach (FileChunk chunk in loader.ReadChunksAsync(path, ChunkSize))
        {
            using (chunk)
            {
                received.AddRange(chunk.Data.ToArray());
                if (chunk.Offset == 0)
                {
                    using var stream = new FileStream(path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite);
                    stream.SetLength((10 * ChunkSize) + 100);
                }
            }
        }

        // Chunks read ahead before the truncation keep their bytes; nothing past the new end appears after the gap.
        Assert.InRange(received.Count, (10 * ChunkSize) + 100, original.Length);
        Assert.Equal(original.AsSpan(0, received.Count).ToArray(), received);
    }

    [Fact]
    public async Task ReadChunksAsync_BadArguments_Throw()
    {
        var loader = new FileLoader();

        Assert.Throws<ArgumentException>(() => loader.ReadChunksAsync(""));
        Assert.Throws<ArgumentOutOfRangeException>(() => loader.ReadChunksAsync("x", 1000));
        await Assert.ThrowsAsync<FileNotFoundException>(async () =>
        {
            await foreach (FileChunk chunk in loader.ReadChunksAsync(Path.Combine(Root, "missing")))
            {
                chunk.Dispose();
            }
        });
    }

    [LinuxFact("a FIFO")]
    public async Task ReadChunksAsync_Fifo_ThrowsInsteadOfBlocking()
    {
        string fifo = Native.CreateFifo(Path.Combine(Root, "pipe"));

        var ex = await Assert.ThrowsAsync<IOException>(async () =>
        {
            await foreach (FileChunk chunk in new FileLoader().ReadChunksAsync(fifo))
            {
                chunk.Dispose();
            }
        }).WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Contains("FIFO", ex.Message);
    }

    /// <summary>Large enough to be read unbuffered when the options ask for it.</summary>
    private const int UnbufferedSize = 16 * 1024 * 1024;

    [LinuxTheory("mincore, to see the page cache")]
    [InlineData(UnbufferedSize)]
    [InlineData(UnbufferedSize + 1)]
    [InlineData(UnbufferedSize + 4095)]
    [InlineData(UnbufferedSize + 4097)]
    [InlineData(UnbufferedSize + ChunkSize - 1)]
    public async Task ReadChunksAsync_Unbuffered_StreamsByteForByteAndLeavesTheCacheAsItWas(int size)
    {
        byte[] expected = Contents(size, seed: size);
        string path = WriteFile("large.bin", expected);
        PageCache.Evict(path);
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);
        var loader = new FileLoader(new FileLoaderOptions { Buffering = FileBuffering.Unbuffered, MemoryBudget = 8 * ChunkSize }, loggerFactory);

        byte[] received = await ReceiveAsync(loader, path);

        Assert.Equal(expected, received);
        Assert.Equal(0, PageCache.GetResidentBytes(path));
        Assert.DoesNotContain(logs.GetSnapshot(), e => e.Id.Id == FastLoadEventId.UnbufferedFallback);
    }

    [Fact]
    public async Task ReadChunksAsync_UnbufferedRefused_StreamsBufferedAndLogsOnce()
    {
        byte[] expected = Contents(UnbufferedSize + 123, seed: 3);
        string path = WriteFile("large.bin", expected);
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);
        var options = new FileLoaderOptions { Buffering = FileBuffering.Unbuffered };
        var hooks = new LoadTestHooks { SimulateUnbufferedRefusal = true };

        byte[] received = await ReceiveAsync(new FileLoader(options, hooks, loggerFactory), path);

        Assert.Equal(expected, received);
        var fallback = Assert.Single(logs.GetSnapshot(), e => e.Id.Id == FastLoadEventId.UnbufferedFallback);
        Assert.Contains(path, fallback.Message);
    }

    [Theory]
    [InlineData(5000)] // not a multiple of the alignment
    [InlineData(ChunkSize)]
    public async Task ReadChunksAsync_UnbufferedWithACallersPoolOrAnUnalignedChunkSize_StreamsBufferedByteForByte(int chunkSize)
    {
        byte[] expected = Contents(UnbufferedSize + 77, seed: 4);
        string path = WriteFile("large.bin", expected);
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { Buffering = FileBuffering.Unbuffered, BufferPool = chunkSize == ChunkSize ? pool : null });

        byte[] received = await ReceiveAsync(loader, path, chunkSize);

        Assert.Equal(expected, received);
        pool.AssertAllReturned();
    }

    private static async Task<byte[]> ReceiveAsync(FileLoader loader, string path, int chunkSize = ChunkSize)
    {
        using var received = new MemoryStream();
        await foreach (FileChunk chunk in loader.ReadChunksAsync(path, chunkSize))
        {
            using (chunk)
            {
                Assert.Equal(received.Length, chunk.Offset);
                received.Write(chunk.Data.Span);
            }
        }

        return received.ToArray();
    }
}
