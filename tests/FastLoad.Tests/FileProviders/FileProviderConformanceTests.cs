using Microsoft.Extensions.FileProviders;

namespace FastLoad.Tests.FileProviders;

/// <summary>
/// The same cases, the same expected answers, for every provider: <see cref="PhysicalFileProvider"/> proves that the
/// expectations are what .NET's own provider answers on this host, and the FastLoad providers must answer alike.
/// </summary>
[Collection(FileProviderCollection.Name)]
public abstract class FileProviderConformanceTests(FileProviderFixture fixture)
{
    protected FileProviderFixture Fixture { get; } = fixture;

    protected abstract IFileProvider Provider { get; }

    // Names are matched as the host's file systems match them: case counts on Linux only.
    private static readonly bool IgnoresCase = !OperatingSystem.IsLinux();

    public static TheoryData<string, string> FoundFiles => new()
    {
        { "one.bin", "one.bin" },
        { "empty.txt", "empty.txt" },
        { "/one.bin", "one.bin" },
        { "//one.bin", "one.bin" },
        { "a/4096.bin", "a/4096.bin" },
        { "/a/4096.bin", "a/4096.bin" },
        { "a//4096.bin", "a/4096.bin" },
        { "a/./4096.bin", "a/4096.bin" },
        { "./a/4096.bin", "a/4096.bin" },
        { "a/b/../4096.bin", "a/4096.bin" },
        { "a/b/c/deep.json", "a/b/c/deep.json" },
        { ".dotfile", ".dotfile" },
        { ".hidden/secret.txt", ".hidden/secret.txt" },
        { "name with space.txt", "name with space.txt" },
        { "ünïcødé.json", "ünïcødé.json" },
        { "big/several-mib.bin", "big/several-mib.bin" },
    };

    public static TheoryData<string> MissingFiles => new()
    {
        "",
        "/",
        "missing.txt",
        "a/missing.bin",
        "a",
        "a/",
        "a/b/c",
        "../one.bin",
        "/../one.bin",
        "a/../../one.bin",
        "a/b/../../../one.bin",
        "..",
        "one.bin\0",
        "\0",
        "one.bin/..",
    };

    public static TheoryData<string, string[]> Directories => new()
    {
        { "", ["Case.txt", "empty.txt", "name with space.txt", "one.bin", "ünïcødé.json", ".dotfile", ".hidden/", "a/", "big/"] },
        { "/", ["Case.txt", "empty.txt", "name with space.txt", "one.bin", "ünïcødé.json", ".dotfile", ".hidden/", "a/", "big/"] },
        { "./", ["Case.txt", "empty.txt", "name with space.txt", "one.bin", "ünïcødé.json", ".dotfile", ".hidden/", "a/", "big/"] },
        { "a", ["4095.bin", "4096.bin", "4097.bin", "b/"] },
        { "a/", ["4095.bin", "4096.bin", "4097.bin", "b/"] },
        { "/a", ["4095.bin", "4096.bin", "4097.bin", "b/"] },
        { "a/b/..", ["4095.bin", "4096.bin", "4097.bin", "b/"] },
        { "a/../", ["Case.txt", "empty.txt", "name with space.txt", "one.bin", "ünïcødé.json", ".dotfile", ".hidden/", "a/", "big/"] },
        { "a/b", ["c/"] },
        { "a/b/c", ["deep.json"] },
        { "a//b/./c/", ["deep.json"] },
        { ".hidden", ["secret.txt"] },
    };

    public static TheoryData<string?> MissingDirectories => new()
    {
        (string?)null,

        // PhysicalFileProvider's own quirk, kept: the root reached by a path that does not end with a separator is not found.
        ".",
        "a/..",
        "missing",
        "one.bin",
        "a/4096.bin",
        "a/missing",
        "..",
        "../a",
        "/../a",
        "a/../../a",
        "a\0",
    };

    [Theory]
    [MemberData(nameof(FoundFiles))]
    public void GetFileInfo_ExistingFile_DescribesIt(string subpath, string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        IFileInfo file = Provider.GetFileInfo(subpath);

        Assert.True(file.Exists);
        Assert.False(file.IsDirectory);
        Assert.Equal(name[(name.LastIndexOf('/') + 1)..], file.Name);
        Assert.Equal(Fixture.Files[name].Length, file.Length);
    }

    [Theory]
    [MemberData(nameof(MissingFiles))]
    public void GetFileInfo_MissingFolderOrEscapingPath_IsNotFound(string subpath)
    {
        IFileInfo file = Provider.GetFileInfo(subpath);

        Assert.False(file.Exists);
        Assert.False(file.IsDirectory);
    }

    [Fact]
    public void GetFileInfo_TrailingSeparatorAfterAFile_FindsTheFile()
    {
        // As on disk, where FileInfo trims it (PhysicalFileProvider then names the file ""; the name is not compared).
        IFileInfo file = Provider.GetFileInfo("one.bin/");

        Assert.True(file.Exists);
        Assert.Equal(1, file.Length);
    }

    [Fact]
    public void GetFileInfo_RootedPath_IsNotFound()
    {
        // A full path of a real file under the root: the leading separator is dropped and the rest is not under the root.
        Assert.False(Provider.GetFileInfo(Path.Combine(Fixture.Folder, "one.bin")).Exists);
        Assert.False(Provider.GetDirectoryContents(Path.Combine(Fixture.Folder, "a")).Exists);
    }

    [Fact]
    public void GetFileInfo_Backslashes_AreNamesOnLinuxAndSeparatorsOnWindows()
    {
        // PhysicalFileProvider splits at the host's separators only: on Linux "a\4096.bin" names a file that is not there.
        Assert.Equal(OperatingSystem.IsWindows(), Provider.GetFileInfo("a\\4096.bin").Exists);
        Assert.Equal(OperatingSystem.IsWindows(), Provider.GetFileInfo("\\one.bin").Exists);
        Assert.Equal(OperatingSystem.IsWindows(), Provider.GetDirectoryContents("a\\b").Exists);
    }

    [Fact]
    public void GetFileInfo_OtherCase_IsFoundOnlyWhereTheHostIgnoresCase()
    {
        Assert.True(Provider.GetFileInfo("Case.txt").Exists);
        Assert.Equal(IgnoresCase, Provider.GetFileInfo("case.txt").Exists);
        Assert.Equal(IgnoresCase, Provider.GetFileInfo("A/4096.BIN").Exists);
        Assert.Equal(IgnoresCase, Provider.GetDirectoryContents("A").Exists);
    }

    [Theory]
    [MemberData(nameof(Directories))]
    public void GetDirectoryContents_ExistingFolder_ListsItsFilesAndFolders(string subpath, string[] expected)
    {
        ArgumentNullException.ThrowIfNull(expected);
        IDirectoryContents contents = Provider.GetDirectoryContents(subpath);

        Assert.True(contents.Exists);
        Assert.Equal(expected.Order(StringComparer.Ordinal), contents.Select(e => e.IsDirectory ? e.Name + "/" : e.Name).Order(StringComparer.Ordinal));
        foreach (IFileInfo entry in contents)
        {
            Assert.True(entry.Exists);
            if (entry.IsDirectory)
            {
                Assert.Equal(-1, entry.Length);
                Assert.Throws<InvalidOperationException>(() => entry.CreateReadStream());
            }
        }
    }

    [Fact]
    public void GetDirectoryContents_Listing_DescribesFilesAsGetFileInfoDoes()
    {
        foreach (IFileInfo entry in Provider.GetDirectoryContents("a").Where(e => !e.IsDirectory))
        {
            IFileInfo file = Provider.GetFileInfo("a/" + entry.Name);
            Assert.Equal(file.Length, entry.Length);
            Assert.Equal(Fixture.Files["a/" + entry.Name], ReadAll(entry.CreateReadStream()));
        }
    }

    [Theory]
    [MemberData(nameof(MissingDirectories))]
    public void GetDirectoryContents_MissingFileOrEscapingPath_IsNotFound(string? subpath)
    {
        IDirectoryContents contents = Provider.GetDirectoryContents(subpath!);

        Assert.False(contents.Exists);
        Assert.Empty(contents);
    }

    [Fact]
    public void CreateReadStream_EveryFile_ReadsItsBytesSynchronously()
    {
        foreach ((string name, byte[] expected) in Fixture.Files)
        {
            using Stream stream = Provider.GetFileInfo(name).CreateReadStream();
            Assert.True(stream.CanRead);
            Assert.Equal(expected.Length, stream.Length);
            Assert.Equal(expected, ReadAll(stream));
            Assert.Equal(0, stream.Read(new byte[1]));
        }
    }

    [Fact]
    public async Task CreateReadStream_EveryFile_ReadsItsBytesAsynchronouslyInSmallReads()
    {
        foreach ((string name, byte[] expected) in Fixture.Files)
        {
            await using Stream stream = Provider.GetFileInfo(name).CreateReadStream();
            var copy = new MemoryStream();
            byte[] buffer = new byte[1000];
            int read;
            while ((read = await stream.ReadAsync(buffer)) > 0)
            {
                copy.Write(buffer, 0, read);
            }

            Assert.Equal(expected, copy.ToArray());
        }
    }

    [Fact]
    public async Task CreateReadStream_CopyToAsync_CopiesTheBytesFromWhereTheStreamStands()
    {
        byte[] expected = Fixture.Files["big/multi-block.bin"];
        await using Stream stream = Provider.GetFileInfo("big/multi-block.bin").CreateReadStream();
        Assert.Equal(10, stream.Read(new byte[10]));
        var copy = new MemoryStream();

        await stream.CopyToAsync(copy);

        Assert.Equal(expected.AsSpan(10).ToArray(), copy.ToArray());
        Assert.Equal(expected.Length, stream.Position);
    }

    [Fact]
    public void CreateReadStream_Seek_ReadsFromThere()
    {
        byte[] expected = Fixture.Files["a/4097.bin"];
        using Stream stream = Provider.GetFileInfo("a/4097.bin").CreateReadStream();
        Assert.True(stream.CanSeek);

        stream.Seek(-100, SeekOrigin.End);
        byte[] tail = new byte[200];
        int read = stream.Read(tail);
        stream.Position = 4000;
        byte[] middle = new byte[50];
        stream.ReadExactly(middle);

        Assert.Equal(100, read);
        Assert.Equal(expected.AsSpan(3997).ToArray(), tail.AsSpan(0, 100).ToArray());
        Assert.Equal(expected.AsSpan(4000, 50).ToArray(), middle);
    }

    [Fact]
    public void CreateReadStream_SameFileTwice_StreamsAreIndependent()
    {
        byte[] expected = Fixture.Files["a/4096.bin"];
        using Stream first = Provider.GetFileInfo("a/4096.bin").CreateReadStream();
        using Stream second = Provider.GetFileInfo("a/4096.bin").CreateReadStream();
        first.ReadExactly(new byte[1000]);

        Assert.Equal(expected, ReadAll(second));
        Assert.Equal(expected.AsSpan(1000).ToArray(), ReadAll(first));
    }

    [Fact]
    public void CreateReadStream_MissingFile_ThrowsFileNotFound()
    {
        Assert.Throws<FileNotFoundException>(() => Provider.GetFileInfo("missing.txt").CreateReadStream());
    }

    private static byte[] ReadAll(Stream stream)
    {
        var copy = new MemoryStream();
        stream.CopyTo(copy);
        return copy.ToArray();
    }
}

public sealed class PhysicalFileProviderConformanceTests(FileProviderFixture fixture) : FileProviderConformanceTests(fixture)
{
    protected override IFileProvider Provider => Fixture.Physical;
}

public sealed class PackFileProviderConformanceTests(FileProviderFixture fixture) : FileProviderConformanceTests(fixture)
{
    protected override IFileProvider Provider => Fixture.Pack;
}

public sealed class PreloadedFileProviderConformanceTests(FileProviderFixture fixture) : FileProviderConformanceTests(fixture)
{
    protected override IFileProvider Provider => Fixture.Preloaded;
}
