using FastLoad.Shared;

namespace FastLoad.Benchmarks.Tests;

/// <summary>FastLoad hands over the same bytes as File.ReadAllBytes, not only the same count (LoadChecksum is order independent).</summary>
[Collection(BenchmarkDataCollection.Name)]
public sealed class ChecksumTests
{
    [Theory]
    [InlineData("1B", IoScheduling.DedicatedThreads)]
    [InlineData("10KB", IoScheduling.DedicatedThreads)]
    [InlineData("100KB", IoScheduling.ThreadPool)]
    public async Task FastLoad_Group_MatchesReadAllBytesChecksum(string group, IoScheduling scheduling)
    {
        IReadOnlyList<string> paths = FileGroup.Paths(group);
        var expected = new LoadChecksum();
        foreach (string path in paths)
        {
            expected.Add(File.ReadAllBytes(path));
        }

        var actual = new LoadChecksum();
        var loader = new FileLoader(new FileLoaderOptions { Scheduling = scheduling });
        await foreach (LoadedFile file in loader.LoadAsync(FileSet.FromPaths(paths)))
        {
            using (file)
            {
                actual.Add(file.Data.Span);
            }
        }

        Assert.Equal(expected.Finish(), actual.Finish());
    }

    [Fact]
    public void Groups_FileSizes_StayWithinMinimumTo100TimesMinimum()
    {
        foreach (FileGroup group in FileGroup.All.Where(group => group.MinSize < 1_000_000))
        {
            long[] sizes = [.. FileGroup.Paths(group.Name).Select(path => new FileInfo(path).Length)];
            Assert.Equal(group.Count, sizes.Length);
            Assert.All(sizes, size => Assert.InRange(size, group.MinSize, group.MaxSize));
        }
    }
}
