using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Packing;

/// <summary>
/// Files that hold no bytes to pack (FIFOs, dangling links, links to folders): by default the pack fails, naming the
/// file and the option; with <see cref="PackOptions.SkipSpecialFiles"/> they are left out and reported.
/// </summary>
public class PackSpecialFilesTests : PackTestBase
{
    [LinuxFact]
    public async Task CreateAsync_FolderWithAFifo_FailsNamingTheFileWhatItIsAndTheOption()
    {
        WriteFile("src/good.bin", 100);
        string fifo = Native.CreateFifo(Path.Combine(Source, "pipe"));

        var error = await Assert.ThrowsAsync<IOException>(() => PackWriter.CreateAsync(PackPath, Source));

        Assert.Contains($"'{fifo}' is a FIFO (named pipe), not a regular file", error.Message, StringComparison.Ordinal);
        Assert.Contains("PackOptions.SkipSpecialFiles", error.Message, StringComparison.Ordinal);
        Assert.Contains("--skip-special-files", error.Message, StringComparison.Ordinal);
        Assert.False(File.Exists(PackPath));
        Assert.Empty(Directory.EnumerateFiles(Root, "*.partial"));
    }

    [LinuxFact]
    public async Task CreateAsync_DanglingLink_FailsNamingTheLinkAndItsTarget()
    {
        WriteFile("src/good.bin", 100);
        string link = Path.Combine(Source, "gone.json");
        File.CreateSymbolicLink(link, Path.Combine(Source, "build-output.json"));

        var error = await Assert.ThrowsAsync<IOException>(() => PackWriter.CreateAsync(PackPath, Source));

        Assert.Contains($"'{link}' is a symbolic link to '{Path.Combine(Source, "build-output.json")}', which does not exist", error.Message, StringComparison.Ordinal);
        Assert.False(File.Exists(PackPath));
    }

    [LinuxFact]
    public async Task CreateAsync_SkipSpecialFiles_PacksTheRestAndReportsWhatItLeftOut()
    {
        byte[] good = TestData.Create("text", 5000, seed: 1);
        WriteFile("src/good.bin", good);
        WriteFile("src/sub/other.bin", 10);
        string fifo = Native.CreateFifo(Path.Combine(Source, "pipe"));
        string link = Path.Combine(Source, "sub", "gone.json");
        File.CreateSymbolicLink(link, Path.Combine(Source, "missing"));

        PackSummary summary = await PackWriter.CreateAsync(PackPath, Source, new PackOptions { SkipSpecialFiles = true });

        Assert.Equal(2, summary.EntryCount);
        Assert.Equal(5010, summary.DataLength);
        Assert.Equal([fifo, link], summary.Skipped.Select(skipped => skipped.Path));
        Assert.All(summary.Skipped, skipped => Assert.Contains("left out of the pack", skipped.Exception.Message, StringComparison.Ordinal));
        Dictionary<string, byte[]> entries = await LoadAllAsync(PackPath);
        Assert.Equal(["good.bin", "sub/other.bin"], entries.Keys.Order(StringComparer.Ordinal));
        Assert.Equal(good, entries["good.bin"]);
    }

    [LinuxFact]
    public async Task CreateAsync_PathsWithALinkToAFolder_NamesTheRestAsIfItWereThere()
    {
        // The entry names come from the set's common folder, which the left-out path takes part in.
        string file = WriteFile("src/a/x.bin", 10);
        string linked = Path.Combine(Source, "b", "folder");
        Directory.CreateDirectory(Path.GetDirectoryName(linked)!);
        Directory.CreateSymbolicLink(linked, Path.Combine(Source, "a"));

        PackSummary summary = await PackWriter.CreateAsync(
            PackPath, FileSet.FromPaths([file, linked]), new PackOptions { SkipSpecialFiles = true });

        Assert.Contains("a directory", Assert.Single(summary.Skipped).Exception.Message, StringComparison.Ordinal);
        await using PackReader reader = await PackReader.OpenAsync(PackPath);
        Assert.Equal("a/x.bin", Assert.Single(reader.Entries).Name);
    }

    [Fact]
    public async Task CreateAsync_OnlyRegularFiles_ReportsTheEntriesAndNothingSkipped()
    {
        WriteSource("text", 100, 200, 300);

        PackSummary summary = await PackWriter.CreateAsync(PackPath, Source);

        Assert.Equal(3, summary.EntryCount);
        Assert.Equal(600, summary.DataLength);
        Assert.Empty(summary.Skipped);
        Assert.False(new PackOptions().SkipSpecialFiles);
    }
}
