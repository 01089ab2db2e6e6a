using System.Collections.Concurrent;
using System.Runtime.ExceptionServices;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Loading;

/// <summary>
/// One bad file never costs another file its data, never hangs the load, and is reported with its path and cause.
/// Races (a file deleted, truncated, grown or replaced between planning and reading) are made deterministic through
/// the buffer pool: with one read at a time, the pool is asked for a file's buffer after that file was opened and
/// before the next one is touched.
/// </summary>
public class BadInputTests : BadInputTestBase
{
    [Fact]
    public async Task Collect_MissingFile_ReportsFileNotFound()
    {
        Exception error = await LoadAmongGoodFilesAsync(Path.Combine(Root, "missing.bin"));

        Assert.IsType<FileNotFoundException>(error);
    }

    /// <summary>
    /// Files that cannot be opened fail with their exception made, not thrown: a load of many of them pays no exception
    /// dispatch for each (about 25 µs under the JIT), and a new process not the setup of its first (about a millisecond).
    /// </summary>
    [LinuxTheory("its opens, which report a failure without an exception; elsewhere .NET's open throws it")]
    [InlineData(IoScheduling.IoUring)] // On the reader threads where the kernel refuses a ring.
    [InlineData(IoScheduling.DedicatedThreads)]
    [InlineData(IoScheduling.ThreadPool)]
    public async Task Collect_MissingFiles_FailWithoutAnExceptionThrown(IoScheduling scheduling)
    {
        List<string> paths = [.. Enumerable.Range(0, 20).Select(i => Path.Combine(Root, $"missing-{i:D2}.bin")), WriteFile("present.bin", 100, seed: 1)];
        var thrown = new ConcurrentQueue<Exception>();
        void Record(object? sender, FirstChanceExceptionEventArgs e)
        {
            if (e.Exception.Message.Contains(Root, StringComparison.Ordinal))
            {
                thrown.Enqueue(e.Exception);
            }
        }

        AppDomain.CurrentDomain.FirstChanceException += Record;
        List<(string Path, int Index, byte[]? Data, Exception? Error)> loaded;
        try
        {
            loaded = await Loads.CollectAsync(new FileLoader(new FileLoaderOptions { Scheduling = scheduling, ErrorHandling = LoadErrorHandling.Collect }), FileSet.FromPaths(paths));
        }
        finally
        {
            AppDomain.CurrentDomain.FirstChanceException -= Record;
        }

        Assert.Equal(20, loaded.Count(file => file.Error is FileNotFoundException));
        Assert.Single(loaded, file => file.Data is { Length: 100 });
        Assert.Empty(thrown);
    }

    [Fact]
    public async Task Collect_Directory_ReportsNotARegularFile()
    {
        string directory = Path.Combine(Root, "sub");
        Directory.CreateDirectory(directory);

        Exception error = await LoadAmongGoodFilesAsync(directory);

        Assert.Contains("directory", error.Message);
    }

    [LinuxFact("a FIFO")]
    public async Task Collect_Fifo_IsRejectedWithoutOpeningAndNeverHangs()
    {
        string fifo = Native.CreateFifo(Path.Combine(Root, "pipe"));

        Exception error = await LoadAmongGoodFilesAsync(fifo);

        Assert.Contains("FIFO", error.Message);
    }

    [LinuxFact("a FIFO behind a symbolic link")]
    public async Task Collect_SymlinkToFifo_IsRejected()
    {
        string fifo = Native.CreateFifo(Path.Combine(Root, "pipe"));
        string link = Path.Combine(Root, "link-to-pipe");
        File.CreateSymbolicLink(link, fifo);

        Exception error = await LoadAmongGoodFilesAsync(link);

        Assert.Contains("FIFO", error.Message);
    }

    [LinuxTheory("/dev/null, /dev/zero, /dev/urandom; Windows has its own test")]
    [InlineData("/dev/null")]
    [InlineData("/dev/zero")]
    [InlineData("/dev/urandom")]
    public async Task Collect_CharacterDevice_IsRejected(string device)
    {
        Exception error = await LoadAmongGoodFilesAsync(device);

        Assert.Contains("character device", error.Message);
    }

    [LinuxFact("a Unix socket file")]
    public async Task Collect_Socket_IsRejected()
    {
        string path = Path.Combine(Root, "socket");
        using var socket = Native.CreateSocketFile(path);

        Exception error = await LoadAmongGoodFilesAsync(path);

        Assert.Contains("socket", error.Message);
    }

    [LinuxFact("a symbolic link, which Windows makes only with a privilege")]
    public async Task Collect_DanglingSymlink_ReportsFileNotFound()
    {
        string link = Path.Combine(Root, "dangling");
        File.CreateSymbolicLink(link, Path.Combine(Root, "nowhere"));

        Exception error = await LoadAmongGoodFilesAsync(link);

        Assert.IsType<FileNotFoundException>(error);
    }

    [Fact]
    public async Task Throw_MissingFile_ThrowsNamingItAndReturnsEveryBuffer()
    {
        var paths = Enumerable.Range(0, 50).Select(i => WriteFile($"f{i}.bin", 1000 + i)).ToList();
        string missing = Path.Combine(Root, "missing.bin");
        paths.Insert(25, missing);
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool, Ordering = LoadOrdering.Input });

        var ex = await Assert.ThrowsAsync<FileNotFoundException>(() => Loads.CollectAsync(loader, FileSet.FromPaths(paths)));

        Assert.Contains(missing, ex.Message);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task Throw_Consumer_MissingFileThrowsAndConsumerNeverSeesIt()
    {
        string good = WriteFile("good.bin", 10);
        string missing = Path.Combine(Root, "missing.bin");
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool, Ordering = LoadOrdering.Input });
        var seen = new List<string>();

        await Assert.ThrowsAsync<FileNotFoundException>(() => loader.LoadAsync(
            FileSet.FromPaths([good, missing]),
            (file, _) =>
            {
                seen.Add(file.Path);
                return ValueTask.CompletedTask;
            }));

        Assert.DoesNotContain(missing, seen);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task Collect_Consumer_FailuresAreInSummaryNotPassedToConsumer()
    {
        string good = WriteFile("good.bin", 10);
        string missing = Path.Combine(Root, "missing.bin");
        var pool = new CountingPool();
        var seen = new List<string>();

        LoadSummary summary = await Collecting(pool).LoadAsync(
            FileSet.FromPaths([good, missing]),
            (file, _) =>
            {
                seen.Add(file.Path);
                return ValueTask.CompletedTask;
            });

        Assert.Equal([good], seen);
        Assert.Equal(1, summary.FileCount);
        LoadFailure failure = Assert.Single(summary.Failures);
        Assert.Equal(missing, failure.Path);
        Assert.IsType<FileNotFoundException>(failure.Exception);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task Collect_FailedFile_DataThrowsWithTheCause()
    {
        string missing = Path.Combine(Root, "missing.bin");
        await foreach (LoadedFile file in Collecting(new CountingPool()).LoadAsync(FileSet.FromPaths([missing])))
        {
            using (file)
            {
                Assert.False(file.Succeeded);
                Assert.Equal(0, file.Length);
                var ex = Assert.Throws<InvalidOperationException>(() => file.Data);
                Assert.Same(file.Error, ex.InnerException);
                Assert.Contains(missing, ex.Message);
            }
        }
    }

    [Fact]
    public async Task Collect_FileDeletedBetweenPlanAndOpen_ReportsItAndLoadsTheOthers()
    {
        byte[] first = Contents(3000, seed: 3);
        string a = WriteFile("a.bin", first);
        string b = WriteFile("b.bin", 2000);
        var pool = new CountingPool();
        pool.OnRent = _ =>
        {
            if (pool.RentCount == 0)
            {
                File.Delete(b); // a is open, b was planned and not yet opened.
            }
        };

        var results = await Loads.CollectAsync(Collecting(pool, parallelism: 1), FileSet.FromPaths([a, b]));

        Assert.Equal(first, results[0].Data);
        Assert.IsType<FileNotFoundException>(results[1].Error);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task Collect_FileTruncatedDuringRead_ReturnsOnlyTheBytesItStillHas()
    {
        byte[] original = Contents(100_000, seed: 4);
        string a = WriteFile("a.bin", original);
        var pool = new CountingPool();
        pool.OnRent = _ =>
        {
            using var stream = new FileStream(a, FileMode.Open, FileAccess.Write, FileShare.ReadWrite);
            stream.SetLength(40_000); // After open, before the first read.
        };

        var results = await Loads.CollectAsync(Collecting(pool, parallelism: 1), FileSet.FromPaths([a]));

        var result = Assert.Single(results);
        Assert.Null(result.Error);
        Assert.Equal(original.AsSpan(0, 40_000).ToArray(), result.Data);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task Collect_FileAppendedDuringRead_ReturnsItAsItWasWhenOpened()
    {
        byte[] original = Contents(50_000, seed: 5);
        string a = WriteFile("a.bin", original);
        var pool = new CountingPool();
        pool.OnRent = _ => File.AppendAllText(a, "appended after open");

        var results = await Loads.CollectAsync(Collecting(pool, parallelism: 1), FileSet.FromPaths([a]));

        Assert.Equal(original, Assert.Single(results).Data);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task Collect_FileReplacedByLargerOneBetweenPlanAndOpen_LoadsWhatIsThereWhenOpened()
    {
        string a = WriteFile("a.bin", 1000);
        string b = WriteFile("b.bin", 10);
        byte[] replacement = Contents(300_000, seed: 6);
        string staged = WriteFile("staged.bin", replacement);
        var pool = new CountingPool();
        pool.OnRent = _ =>
        {
            if (pool.RentCount == 0)
            {
                File.Move(staged, b, overwrite: true);
            }
        };
        var loader = new FileLoader(new FileLoaderOptions
        {
            ErrorHandling = LoadErrorHandling.Collect,
            Ordering = LoadOrdering.Input,
            MaxDegreeOfParallelism = 1,
            BufferPool = pool,
            MemoryBudget = 64 * 1024,
        });

        var results = await Loads.CollectAsync(loader, FileSet.FromPaths([a, b]));

        Assert.Equal(replacement, results[1].Data);
        pool.AssertAllReturned();
    }
}
