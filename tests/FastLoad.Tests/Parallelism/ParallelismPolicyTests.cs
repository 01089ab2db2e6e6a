using FastLoad.Engine;

namespace FastLoad.Tests.Parallelism;

public class ParallelismPolicyTests
{
    private const long Budget = 512L << 20;

    [Theory]
    [InlineData(4, 4)]
    [InlineData(2, 4)]
    [InlineData(1, 4)]
    public void Ceiling_Rotational_NoDeeperThanTheSmallFilePrior(int initial, int expected)
    {
        Assert.Equal(expected, ParallelismPolicy.Ceiling(StorageKind.Rotational, initial, meanLength: 16 * 1024, fileCount: 10_000, Budget));
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
