using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Loading;

public class FileSetTests : TempDirectoryTestBase
{
    [Fact]
    public void FromDirectory_Recursive_MatchesPatternInOrdinalOrderIncludingHiddenFiles()
    {
        WriteFile("b.json", 1);
        WriteFile("a.json", 1);
        WriteFile(".hidden.json", 1);
        WriteFile("sub/c.json", 1);
        WriteFile("sub/d.txt", 1);

        var paths = FileSet.FromDirectory(Root, "*.json").EnumeratePaths().ToList();

        string[] expected = [".hidden.json", "a.json", "b.json", "sub/c.json"];
        Assert.Equal(expected.Select(p => Path.Combine([Root, .. p.Split('/')])).Order(StringComparer.Ordinal), paths);
    }

    [Fact]
    public void FromDirectory_NotRecursive_SkipsSubdirectories()
    {
        WriteFile("a.bin", 1);
        WriteFile("sub/b.bin", 1);

        Assert.Equal([Path.Combine(Root, "a.bin")], FileSet.FromDirectory(Root, recursive: false).EnumeratePaths());
    }

    [LinuxFact("a symbolic link to a folder, which Windows makes only with a privilege")]
    public async Task FromDirectory_SymlinkLoop_IsNotFollowedAndTheLoadEnds()
    {
        WriteFile("sub/a.bin", 10);
        Directory.CreateSymbolicLink(Path.Combine(Root, "sub", "loop"), Root);

        var results = await Loads.CollectAsync(new FileLoader(), FileSet.FromDirectory(Root)).WaitAsync(TimeSpan.FromSeconds(60));

        Assert.Equal([Path.Combine(Root, "sub", "a.bin")], results.Select(r => r.Path));
    }

    [Fact]
    public void FromDirectory_ManyFolders_ListsEveryFileOnceInOrdinalOrderAcrossSeparators()
    {
        // Names that sort around the separator: "a-1" < "a.x" < "a/..." < "a0" ordinally, so a folder's files cannot
        // simply come before or after its subfolders; on Windows the separator is '\', which "a_b" sorts after; "Z"
        // before them all. No two names differ only by case (Windows).
        // Walked as a load walks cached folders (the calling thread), and as it walks folders that are not (walkers
        // on reader threads sharing them), by this OS's walk and by the walk through .NET's enumeration that Windows
        // and macOS get: the same list.
        var expected = new List<string>();
        foreach (string top in new[] { "a", "a-1", "a.x", "a0", "a_b", "Z", "b" })
        {
            expected.Add(WriteFile(top + ".bin", 1));
            for (int sub = 0; sub < 12; sub++)
            {
                expected.Add(WriteFile($"{top}/{sub}/f.bin", 1));
                expected.Add(WriteFile($"{top}/{sub}-f.bin", 1));
                expected.Add(WriteFile($"{top}/{sub}/deeper/.hidden", 1));
            }
        }

        var observer = new DirectoryWalkObserver();

        string[] paths = [.. FileSet.FromDirectory(Root).EnumeratePaths()];
        string[] walked = DirectoryWalk.Enumerate(Root, "*", recursive: true, walkersFromTheStart: true);
        string[] throughDotNet = DirectoryWalk.EnumerateThroughDotNet(Root, "*", recursive: true);
        string[] throughDotNetByWalkers =
            DirectoryWalk.EnumerateThroughDotNet(Root, "*", recursive: true, walkersFromTheStart: true, observer);

        Assert.Equal(expected.Order(StringComparer.Ordinal), paths);
        Assert.Equal(paths, walked);
        Assert.Equal(paths, throughDotNet);
        Assert.Equal(paths, throughDotNetByWalkers);
        Assert.True(observer.PeakWalkers > 1, $"{observer.PeakWalkers} walker(s)");
    }

    [LinuxFact("symbolic links, which Windows makes only with a privilege")]
    public void FromDirectory_Links_FilesAndDanglingOnesListedFoldersNeitherListedNorFollowed()
    {
        string file = WriteFile("sub/file.bin", 3);
        Directory.CreateSymbolicLink(Path.Combine(Root, "sub", "folder-link"), Path.Combine(Root, "other"));
        WriteFile("other/inside.bin", 3);
        string fileLink = Path.Combine(Root, "sub", "file-link");
        File.CreateSymbolicLink(fileLink, file);
        string dangling = Path.Combine(Root, "sub", "dangling");
        File.CreateSymbolicLink(dangling, Path.Combine(Root, "nowhere"));

        string[] paths = [.. FileSet.FromDirectory(Path.Combine(Root, "sub")).EnumeratePaths()];

        Assert.Equal(new[] { dangling, fileLink, file }.Order(StringComparer.Ordinal), paths);
    }

    [Fact]
    public async Task LoadAsync_MissingRootDirectory_ThrowsDirectoryNotFound()
    {
        string missing = Path.Combine(Root, "missing");

        var ex = await Assert.ThrowsAsync<DirectoryNotFoundException>(
            () => Loads.CollectAsync(new FileLoader(new FileLoaderOptions { ErrorHandling = LoadErrorHandling.Collect }), FileSet.FromDirectory(missing)));

        Assert.Contains(missing, ex.Message);
    }

    [Fact]
    public void Factories_InvalidArguments_Throw()
    {
        Assert.Throws<ArgumentNullException>(() => FileSet.FromPaths(null!));
        Assert.Throws<ArgumentException>(() => FileSet.FromPaths(["a", ""]));
        Assert.Throws<ArgumentNullException>(() => FileSet.FromDirectory(null!));
        Assert.Throws<ArgumentException>(() => FileSet.FromDirectory(Root, ""));
        Assert.Throws<ArgumentNullException>(() => FileSet.Concat([FileSet.FromPaths([]), null!]));
    }

    [Fact]
    public void LoadAsync_NullArguments_ThrowBeforeAnyEnumeration()
    {
        var loader = new FileLoader();

        Assert.Throws<ArgumentNullException>(() => loader.LoadAsync(null!));
        // Synchronously, from the call itself, not from the returned task.
        Assert.Throws<ArgumentNullException>(() => { _ = loader.LoadAsync(null!, (_, _) => ValueTask.CompletedTask); });
        Assert.Throws<ArgumentNullException>(() => { _ = loader.LoadAsync(FileSet.FromPaths([]), null!); });
    }

    [Fact]
    public void Concat_EnumeratesEachSetInTurn()
    {
        string a = WriteFile("x/a.bin", 1);
        string b = WriteFile("y/b.bin", 1);

        var set = FileSet.Concat([FileSet.FromDirectory(Path.Combine(Root, "y")), FileSet.FromPaths([a])]);

        Assert.Equal([b, a], set.EnumeratePaths());
    }
}
