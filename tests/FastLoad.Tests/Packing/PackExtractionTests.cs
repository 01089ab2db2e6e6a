using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Packing;

/// <summary>Extraction never writes outside its folder, whatever already lies in it.</summary>
public sealed class PackExtractionTests : PackTestBase
{
    [LinuxFact("symbolic links, which Windows makes only with a privilege")]
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

    [LinuxFact("symbolic links, which Windows makes only with a privilege")]
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

    [LinuxFact("symbolic links, which Windows makes only with a privilege")]
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

    [CaseSensitiveFileSystemFact]
    public async Task ExtractAsync_EntriesDifferingOnlyByCase_WritesBothWhereTheFileSystemTellsThemApart()
    {
        string target = Path.Combine(Root, "out");
        await using PackReader reader = await PackReader.OpenAsync(await CaseVariantPackAsync());

        await reader.ExtractAsync(target);

        Assert.Equal(TestData.Create(TestData.Text, 100, seed: 1), await File.ReadAllBytesAsync(Path.Combine(target, "F0.bin")));
        Assert.Equal(TestData.Create(TestData.Text, 200, seed: 2), await File.ReadAllBytesAsync(Path.Combine(target, "f0.bin")));
    }

    [CaseInsensitiveFileSystemFact]
    public async Task ExtractAsync_EntriesDifferingOnlyByCase_ThrowsRatherThanReplaceTheFirstWhereTheFileSystemIgnoresCase()
    {
        string target = Path.Combine(Root, "out");
        await using PackReader reader = await PackReader.OpenAsync(await CaseVariantPackAsync());

        IOException error = await Assert.ThrowsAsync<IOException>(() => reader.ExtractAsync(target));

        Assert.Contains("ignores case", error.Message, StringComparison.Ordinal);
        string survivor = Assert.Single(Directory.GetFiles(target));
        byte[] expected = Path.GetFileName(survivor) == "F0.bin" ? TestData.Create(TestData.Text, 100, seed: 1) : TestData.Create(TestData.Text, 200, seed: 2);
        Assert.Equal(expected, await File.ReadAllBytesAsync(survivor));
    }

    /// <summary>
    /// A pack of "F0.bin" and "f0.bin", made on any file system: it packs "F0.bin" and "g0.bin", then renames the
    /// second entry in the index (the names area is plain UTF-8, and the index hash is rewritten).
    /// </summary>
    private async Task<string> CaseVariantPackAsync()
    {
        WriteFile("src/F0.bin", TestData.Create(TestData.Text, 100, seed: 1));
        WriteFile("src/g0.bin", TestData.Create(TestData.Text, 200, seed: 2));
        await PackWriter.CreateAsync(PackPath, Source);
        byte[] pack = EditIndex(await File.ReadAllBytesAsync(PackPath), index =>
        {
            int at = index.IndexOf("g0.bin"u8);
            Assert.True(at >= 0);
            "f0.bin"u8.CopyTo(index[at..]);
        });
        string path = Path.Combine(Root, "case-variants.fpk");
        await File.WriteAllBytesAsync(path, pack);
        return path;
    }
}
