using FastLoad.Engine;

namespace FastLoad.Tests.Parallelism;

public class ParallelismPolicyTests
{
    private const long Budget = 512L << 20;

    [Theory]
    [InlineData(64)]
    [InlineData(4)]
    [InlineData(2)]
    public void Ceiling_Rotational_KeepsThePrior(int initial)
    {
        Assert.Equal(initial, ParallelismPolicy.Ceiling(StorageKind.Rotational, initial, meanLength: 16 * 1024, fileCount: 10_000, Budget));
    }

    [Theory]
    [InlineData(16 * 1024, 64)] // Small files: a window deep enough for a queuing drive to pick by rotation.
    [InlineData(1024 * 1024, 64)]
    [InlineData(4 * 1024 * 1024, 4)]
    [InlineData(64 * 1024 * 1024, 2)]
    public void Choose_Rotational_DeepForSmallFilesShallowForLargeOnes(long meanLength, int expected)
    {
        Assert.Equal(expected, ParallelismPolicy.Choose(StorageKind.Rotational, meanLength, fileCount: 10_000, memoryBudget: 4L << 30, processorCount: 2));
    }

    [Fact]
    public void Choose_Rotational_NoDeeperThanTheFiles()
    {
        Assert.Equal(10, ParallelismPolicy.Choose(StorageKind.Rotational, 16 * 1024, fileCount: 10, Budget, processorCount: 2));
    }

    [Theory]
    [InlineData(StorageKind.SolidState)]
    [InlineData(StorageKind.Unknown)]
    public void Ceiling_OtherStorage_UpToTheAdaptiveMaximum(StorageKind kind)
    {
        Assert.Equal(ParallelismPolicy.MaxAdaptiveDepth, ParallelismPolicy.Ceiling(kind, 64, meanLength: 16 * 1024, fileCount: 10_000, Budget));
    }

    [Fact]
    public void Ceiling_NeverBelowTheInitialParallelism()
    {
        Assert.Equal(300, ParallelismPolicy.Ceiling(StorageKind.SolidState, 300, meanLength: 16 * 1024, fileCount: 100, Budget));
    }
}
