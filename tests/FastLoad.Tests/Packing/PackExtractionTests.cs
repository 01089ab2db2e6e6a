using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Packing;

/// <summary>Extraction never writes outside its folder, whatever already lies in it.</summary>
public sealed class PackExtractionTests : PackTestBase
{
    [LinuxFact]
    public async Task ExtractAsync_FolderIsSymlinkToOutside_ThrowsAndWritesNothingThere()
    {
        WriteSource(TestData.Text, 1, 2, 3, 4);
        await PackWriter.CreateAsync(PackPath, Source);
        string outside = Path.Combine(Root, "outside");
        string target = Path.Combine(Root, "out");
        Directory.CreateDirectory(outside);
        Directory.CreateDirectory(target);
        Directory.CreateSymbolicLink(Path.Combine(target, "dir0"), outside);

        await using PackReader reader = await PackReader.OpenAsync(PackPath);
        IOException error = await Assert.ThrowsAsync<IOException>(() => reader.ExtractAsync(target));

        Assert.Contains("symbolic link", error.Message, StringComparison.Ordinal);
        Assert.Empty(Directory.EnumerateFileSystemEntries(outside));
    }

    [LinuxFact]
    public async Task ExtractAsync_FileIsSymlinkToOutside_ThrowsAndLeavesItAlone()
    {
        WriteSource(TestData.Text, 1, 2, 3);
        await PackWriter.CreateAsync(PackPath, Source);
        string outsideFile = WriteFile("victim.txt", [1, 2, 3]);
        string target = Path.Combine(Root, "out");
        Directory.CreateDirectory(target);
        File.CreateSymbolicLink(Path.Combine(target, "f0.bin"), outsideFile);

        await using PackReader reader = await PackReader.OpenAsync(PackPath);
        await Assert.ThrowsAsync<IOException>(() => reader.ExtractAsync(target));

        Assert.Equal(new byte[] { 1, 2, 3 }, await File.ReadAllBytesAsync(outsideFile));
    }

    [LinuxFact]
    public async Task ExtractAsync_DanglingSymlinkInPlace_Throws()
    {
        WriteSource(TestData.Text, 1, 2, 3);
        await PackWriter.CreateAsync(PackPath, Source);
        string target = Path.Combine(Root, "out");
        Directory.CreateDirectory(target);
        string wouldBeCreated = Path.Combine(Root, "created-through-link");
        File.CreateSymbolicLink(Path.Combine(target, "f2.bin"), wouldBeCreated);

        await using PackReader reader = await PackReader.OpenAsync(PackPath);
        await Assert.ThrowsAsync<IOException>(() => reader.ExtractAsync(target));

        Assert.False(File.Exists(wouldBeCreated));
    }
}
