using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Loading;

/// <summary>
/// The walk Windows and macOS get: each folder read by .NET's enumeration of one folder, the folders shared by walkers
/// once one waited for the device. Run here on every OS. Its order, beside the walk of the OS itself: FileSetTests; its
/// walkers: DirectoryWalkerTests.
/// </summary>
public class EnumerationWalkTests : TempDirectoryTestBase
{
    [Fact]
    public void Walk_PatternAndNotRecursive_OnlyMatchingFilesOfTheRoot()
    {
        string a = WriteFile("a.json", 1);
        WriteFile("b.txt", 1);
        WriteFile("sub/c.json", 1);

        Assert.Equal([a], DirectoryWalk.EnumerateThroughDotNet(Root, "*.json", recursive: false));
        Assert.Equal(
            [a, Path.Combine(Root, "sub", "c.json")], DirectoryWalk.EnumerateThroughDotNet(Root, "*.json", recursive: true));
    }

    [Fact]
    public void Walk_MissingRoot_DirectoryNotFoundNamingIt()
    {
        string missing = Path.Combine(Root, "missing");

        var error = Assert.Throws<DirectoryNotFoundException>(
            () => DirectoryWalk.EnumerateThroughDotNet(missing, "*", recursive: true));

        Assert.Contains(missing, error.Message);
    }

    [Fact]
    public void Walk_SubfolderRemovedBeforeItIsRead_SkippedAndTheRestListed()
    {
        string kept = WriteFile("kept/a.bin", 1);
        string top = WriteFile("top.bin", 1);
        WriteFile("removed/b.bin", 1);
        string removed = Path.Combine(Root, "removed");

        // The root is listed first, on the calling thread, and its subfolders are read after the observer returns.
        var observer = new DirectoryWalkObserver
        {
            FolderListed = path =>
            {
                if (path == Root)
                {
                    Directory.Delete(removed, recursive: true);
                }
            },
        };

        string[] paths = DirectoryWalk.EnumerateThroughDotNet(Root, "*", recursive: true, observer: observer);

        Assert.Equal([kept, top], paths);
    }

    [LinuxFact("a symbolic link to a folder, which Windows makes only with a privilege")]
    public void Walk_LinksToFolders_NeitherListedNorFollowed()
    {
        string file = WriteFile("sub/file.bin", 1);
        Directory.CreateSymbolicLink(Path.Combine(Root, "sub", "loop"), Root);
        Directory.CreateSymbolicLink(Path.Combine(Root, "sub", "other-link"), Path.Combine(Root, "other"));
        string inside = WriteFile("other/inside.bin", 1);

        Assert.Equal([inside, file], DirectoryWalk.EnumerateThroughDotNet(Root, "*", recursive: true));
    }

}
