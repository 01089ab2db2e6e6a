using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Loading;

/// <summary>Every byte of every file arrives, for sizes around the boundaries, under every scheduling and ordering.</summary>
public class ContentTests : TempDirectoryTestBase
{
    public static TheoryData<int, IoScheduling, LoadOrdering> Grid()
    {
        var data = new TheoryData<int, IoScheduling, LoadOrdering>();
        foreach (int size in new[] { 0, 1, 4095, 4096, 4097, 3 << 20, (8 << 20) + 1 })
        {
            foreach (IoScheduling scheduling in Enum.GetValues<IoScheduling>())
            {
                foreach (LoadOrdering ordering in Enum.GetValues<LoadOrdering>())
                {
                    data.Add(size, scheduling, ordering);
                }
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Grid))]
    public async Task LoadAsync_FileOfSize_ReturnsExactContents(int size, IoScheduling scheduling, LoadOrdering ordering)
    {
        byte[] expected = Contents(size, seed: size);
        string path = WriteFile("file.bin", expected);
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { Scheduling = scheduling, Ordering = ordering, BufferPool = pool });

        var results = await Loads.CollectAsync(loader, FileSet.FromPaths([path]));

        var result = Assert.Single(results);
        Assert.Equal(path, result.Path);
        Assert.Null(result.Error);
        Assert.Equal(expected, result.Data);
        pool.AssertAllReturned();
    }

    [Theory]
    [InlineData(IoScheduling.DedicatedThreads)]
    [InlineData(IoScheduling.ThreadPool)]
    public async Task LoadAsync_ManyFiles_DeliversEachExactlyOnceWithItsContents(IoScheduling scheduling)
    {
        var expected = new Dictionary<string, byte[]>();
        var random = new Random(7);
        for (int i = 0; i < 300; i++)
        {
            byte[] contents = Contents(random.Next(0, 70_000), seed: i);
            expected[WriteFile($"d{i % 7}/f{i}.bin", contents)] = contents;
        }

        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { Scheduling = scheduling, BufferPool = pool });

        var results = await Loads.CollectAsync(loader, FileSet.FromDirectory(Root));

        Assert.Equal(expected.Count, results.Count);
        Assert.Equal(expected.Count, results.Select(r => r.Path).Distinct().Count());
        foreach (var result in results)
        {
            Assert.Equal(expected[result.Path], result.Data);
        }

        pool.AssertAllReturned();
    }

    [Fact]
    public async Task LoadAsync_Consumer_SeesEveryFileAndSummaryCountsThem()
    {
        var expected = new Dictionary<string, byte[]>();
        for (int i = 0; i < 120; i++)
        {
            byte[] contents = Contents(i * 100, seed: i);
            expected[WriteFile($"f{i:D3}.bin", contents)] = contents;
        }

        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool, ConsumerParallelism = 4 });
        var seen = new System.Collections.Concurrent.ConcurrentDictionary<string, byte[]>();

        long start = System.Diagnostics.Stopwatch.GetTimestamp();
        LoadSummary summary = await loader.LoadAsync(
            FileSet.FromDirectory(Root),
            (file, _) =>
            {
                Assert.True(seen.TryAdd(file.Path, file.Data.ToArray()));
                return ValueTask.CompletedTask;
            });

        Assert.Equal(expected.Count, summary.FileCount);
        Assert.Equal(expected.Values.Sum(v => (long)v.Length), summary.ByteCount);
        Assert.Empty(summary.Failures);
        Assert.True(summary.DegreeOfParallelism >= 1);
        TimeSpan call = System.Diagnostics.Stopwatch.GetElapsedTime(start);
        Assert.InRange(summary.Elapsed, TimeSpan.FromTicks(1), call); // the load's own time, within the call's
        Assert.Equal(expected.Count, seen.Count);
        foreach (var (path, data) in seen)
        {
            Assert.Equal(expected[path], data);
        }

        pool.AssertAllReturned();
    }

    [Fact]
    public async Task LoadedFile_Dispose_ReturnsBufferOnceAndDataThenThrows()
    {
        string path = WriteFile("a.bin", 10);
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool });

        LoadedFile? kept = null;
        await foreach (LoadedFile file in loader.LoadAsync(FileSet.FromPaths([path])))
        {
            kept = file;
        }

        Assert.NotNull(kept);
        Assert.Equal(10, kept.Data.Length);
        Assert.Equal(1, pool.Outstanding);
        kept.Dispose();
        kept.Dispose();

        pool.AssertAllReturned();
        Assert.Throws<ObjectDisposedException>(() => kept.Data);
    }

    [LinuxFact("/proc files, whose stat says 0 bytes")]
    public async Task LoadAsync_ProcFileWithZeroLengthAndContent_ReadsToEnd()
    {
        const string path = "/proc/self/status";
        Assert.Equal(0, new FileInfo(path).Length);

        var results = await Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([path]));

        var result = Assert.Single(results);
        Assert.Null(result.Error);
        Assert.Contains("Name:", System.Text.Encoding.ASCII.GetString(result.Data!));
    }
}
