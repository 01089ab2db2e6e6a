using System.Buffers;

namespace FastLoad.Tests.Loading;

public class FileLoaderOptionsTests
{
    [Fact]
    public void Defaults_AreDocumentedValues()
    {
        var options = new FileLoaderOptions();

        Assert.Null(options.MaxDegreeOfParallelism);
        Assert.Equal(LoadOrdering.Completion, options.Ordering);
        Assert.Equal(LoadErrorHandling.Throw, options.ErrorHandling);
        Assert.Equal(IoScheduling.IoUring, options.Scheduling);
        Assert.Equal(1, options.ConsumerParallelism);
        Assert.Null(options.BufferPool);
    }

    [Fact]
    public void DefaultOfEachEnum_IsTheOptionsDefault()
    {
        // An options object bound from configuration, or made field by field, gets the default where a value is missing.
        var options = new FileLoaderOptions();

        Assert.Equal(default, options.Scheduling);
        Assert.Equal(default, options.Ordering);
        Assert.Equal(default, options.ErrorHandling);
        Assert.Equal(default, options.PhysicalOrder);
        Assert.Equal(default, options.Buffering);
    }

    [Fact]
    public void MemoryBudget_DefaultsToOneSixteenthOfAvailableMemory_Between32And512MiB()
    {
        long expected = Math.Clamp(GC.GetGCMemoryInfo().TotalAvailableMemoryBytes / 16, 32L << 20, 512L << 20);

        Assert.Equal(expected, new FileLoaderOptions().MemoryBudget);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    [InlineData(1025)]
    public void Constructor_DegreeOfParallelismOutOfRange_ThrowsNamingIt(int value)
    {
        var ex = Assert.Throws<ArgumentException>(() => new FileLoader(new FileLoaderOptions { MaxDegreeOfParallelism = value }));

        Assert.Equal("options", ex.ParamName);
        Assert.Contains("MaxDegreeOfParallelism", ex.Message);
        Assert.Contains("between 1 and 1024", ex.Message);
    }

    [Theory]
    [InlineData(0L)]
    [InlineData(65535L)]
    public void Constructor_MemoryBudgetBelow64KiB_ThrowsNamingIt(long value)
    {
        var ex = Assert.Throws<ArgumentException>(() => new FileLoader(new FileLoaderOptions { MemoryBudget = value }));

        Assert.Contains("MemoryBudget", ex.Message);
    }

    [Fact]
    public void Constructor_UndefinedEnumValue_ThrowsNamingIt()
    {
        var ex = Assert.Throws<ArgumentException>(() => new FileLoader(new FileLoaderOptions { Ordering = (LoadOrdering)7 }));

        Assert.Contains("Ordering", ex.Message);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(257)]
    public void Constructor_ConsumerParallelismOutOfRange_Throws(int value)
    {
        var ex = Assert.Throws<ArgumentException>(() => new FileLoader(new FileLoaderOptions { ConsumerParallelism = value }));

        Assert.Contains("ConsumerParallelism", ex.Message);
    }

    [Fact]
    public void Constructor_ValidBoundaryValues_Succeed()
    {
        _ = new FileLoader(new FileLoaderOptions { MaxDegreeOfParallelism = 1, MemoryBudget = 64 * 1024, ConsumerParallelism = 1 });
        _ = new FileLoader(new FileLoaderOptions { MaxDegreeOfParallelism = 1024, MemoryBudget = long.MaxValue, ConsumerParallelism = 256 });
        _ = new FileLoader();
    }

    [Fact]
    public async Task Constructor_CopiesOptions_LaterChangesHaveNoEffect()
    {
        var pool = new Infrastructure.CountingPool();
        var options = new FileLoaderOptions { BufferPool = pool };
        var loader = new FileLoader(options);
        options.BufferPool = ArrayPool<byte>.Shared;
        options.MaxDegreeOfParallelism = 0;

        string path = Path.GetTempFileName();
        try
        {
            File.WriteAllBytes(path, [1, 2, 3]);
            await foreach (LoadedFile file in loader.LoadAsync(FileSet.FromPaths([path])))
            {
                file.Dispose();
            }
        }
        finally
        {
            File.Delete(path);
        }

        Assert.Equal(1, pool.RentCount);
    }
}
