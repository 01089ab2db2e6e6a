namespace FastLoad.Benchmarks.Tests;

/// <summary>
/// Honesty: within a group every scenario returns the same number of bytes, and that number is the one the throughput
/// and fio columns divide by. A scenario that read less (a short read not looped, a file skipped) fails here.
/// </summary>
[Collection(BenchmarkDataCollection.Name)]
public sealed class ScenarioTotalsTests
{
    [Theory]
    [InlineData("1B")]
    [InlineData("1KB")]
    [InlineData("10KB")]
    [InlineData("100KB")]
    public void ManyFiles_EveryScenario_ReturnsTheGroupsBytes(string group) =>
        AssertEveryScenarioReadsTheWorkload(new ManyFilesBenchmarks { Group = group });

    [Fact]
    public void LargeFile_EveryScenario_ReturnsTheFileLength() =>
        AssertEveryScenarioReadsTheWorkload(new LargeFileBenchmarks { SizeMiB = 3 });

    [Theory]
    [InlineData(1)]
    [InlineData(16)]
    [InlineData(64)]
    public void OneVsMany_EveryScenario_ReturnsTheSetsBytes(int fileCount) =>
        AssertEveryScenarioReadsTheWorkload(new OneVsManyBenchmarks { FileCount = fileCount, TotalMiB = 1 });

    [Theory]
    [InlineData(4)]
    [InlineData(4096)]
    [InlineData(10_000)]
    public void ReadSize_RandomAndSequential_ReadTheSameBytes(int readSize) =>
        AssertEveryScenarioReadsTheWorkload(new ReadSizeBenchmarks { FileMiB = 1, ReadSize = readSize });

    private static void AssertEveryScenarioReadsTheWorkload(IWorkloadSource benchmark)
    {
        IReadOnlyList<(string Scenario, long Bytes)> results = ScenarioRunner.RunAll(benchmark);
        long expected = benchmark.DescribeWorkload().Bytes;

        Assert.True(expected > 0);
        Assert.True(results.Count >= 2, "A group needs at least two scenarios to compare.");
        Assert.All(results, result => Assert.True(result.Bytes == expected, $"{result.Scenario} read {result.Bytes} bytes, expected {expected}."));
    }
}
