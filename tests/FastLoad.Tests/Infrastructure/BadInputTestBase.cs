namespace FastLoad.Tests.Infrastructure;

/// <summary>
/// What every bad-input test checks: the bad file is reported under <see cref="LoadErrorHandling.Collect"/> with its
/// path, the good files around it load intact, nothing hangs and every buffer goes back.
/// </summary>
public abstract class BadInputTestBase : TempDirectoryTestBase
{
    /// <summary>Far beyond any load here; a test that reaches it has hung.</summary>
    protected static readonly TimeSpan NoHang = TimeSpan.FromSeconds(60);

    protected static FileLoader Collecting(CountingPool pool, int? parallelism = null) => new(new FileLoaderOptions
    {
        ErrorHandling = LoadErrorHandling.Collect,
        Ordering = LoadOrdering.Input,
        MaxDegreeOfParallelism = parallelism,
        BufferPool = pool,
    });

    /// <summary>Loads good files around <paramref name="bad"/>; asserts they are intact and returns the bad one's error.</summary>
    protected async Task<Exception> LoadAmongGoodFilesAsync(string bad)
    {
        byte[] before = Contents(5000, seed: 1);
        byte[] after = Contents(7000, seed: 2);
        string first = WriteFile("good-before.bin", before);
        string last = WriteFile("good-after.bin", after);
        var pool = new CountingPool();

        var results = await Loads.CollectAsync(Collecting(pool), FileSet.FromPaths([first, bad, last])).WaitAsync(NoHang);

        Assert.Equal(3, results.Count);
        Assert.Equal(before, results[0].Data);
        Assert.Equal(after, results[2].Data);
        Assert.Equal(bad, results[1].Path);
        Assert.Null(results[1].Data);
        Exception error = Assert.IsAssignableFrom<Exception>(results[1].Error);
        Assert.Contains(bad, error.Message);
        pool.AssertAllReturned();
        return error;
    }
}
