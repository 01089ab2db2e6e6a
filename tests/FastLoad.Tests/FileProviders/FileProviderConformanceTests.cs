using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.FileProviders.Physical;

namespace FastLoad.Tests.FileProviders;

/// <summary>
/// The same cases, the same expected answers, for every provider, each with <see cref="ExclusionFilters.None"/> and
/// with <see cref="ExclusionFilters.Sensitive"/> (<see cref="PhysicalFileProvider"/>'s default):
/// <see cref="PhysicalFileProvider"/> proves that the expectations are what .NET's own provider answers on this host,
/// and the FastLoad providers must answer alike. Where they differ by design (special files, empty folders in a pack,
/// times in a pack), a property of the subclass says so and the test checks both answers.
/// </summary>
[Collection(FileProviderCollection.Name)]
public abstract class FileProviderConformanceTests(FileProviderFixture fixture, ExclusionFilters filters)
{
    protected FileProviderFixture Fixture { get; } = fixture;

    protected ExclusionFilters Filters { get; } = filters;

    protected abstract IFileProvider Provider { get; }

    /// <summary>Gets whether the provider serves what is not a regular file (FIFOs, dangling links) and follows links to folders.</summary>
    protected virtual bool ServesSpecialEntries => false;

    /// <summary>Gets whether the provider knows folders that hold nothing.</summary>
    protected virtual bool KeepsEmptyFolders => true;

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
        { "/.dotfile", ".dotfile" },
        { ".hidden/secret.txt", ".hidden/secret.txt" },
        { "a/.dot", "a/.dot" },
        { "a/.inner/x.txt", "a/.inner/x.txt" },
        { "a/b/../.inner/x.txt", "a/.inner/x.txt" },
        { "bad/good.txt", "bad/good.txt" },
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
        { "", ["Case.txt", "empty.txt", "name with space.txt", "one.bin", "ünïcødé.json", ".dotfile", ".hidden/", "a.txt", "a/", "bad/", "big/", "folders/"] },
        { "/", ["Case.txt", "empty.txt", "name with space.txt", "one.bin", "ünïcødé.json", ".dotfile", ".hidden/", "a.txt", "a/", "bad/", "big/", "folders/"] },
        { "./", ["Case.txt", "empty.txt", "name with space.txt", "one.bin", "ünïcødé.json", ".dotfile", ".hidden/", "a.txt", "a/", "bad/", "big/", "folders/"] },
        { "a", ["4095.bin", "4096.bin", "4097.bin", ".dot", ".inner/", "b/"] },
        { "a/", ["4095.bin", "4096.bin", "4097.bin", ".dot", ".inner/", "b/"] },
        { "/a", ["4095.bin", "4096.bin", "4097.bin", ".dot", ".inner/", "b/"] },
        { "a/b/..", ["4095.bin", "4096.bin", "4097.bin", ".dot", ".inner/", "b/"] },
        { "a/../", ["Case.txt", "empty.txt", "name with space.txt", "one.bin", "ünïcødé.json", ".dotfile", ".hidden/", "a.txt", "a/", "bad/", "big/", "folders/"] },
        { "a/b", ["c/"] },
        { "a/b/c", ["deep.json"] },
        { "a//b/./c/", ["deep.json"] },
        { ".hidden", ["secret.txt"] },
        { "a/.inner", ["x.txt"] },
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
    public void GetFileInfo_ExistingFile_DescribesItUnlessItsOwnNameIsHidden(string subpath, string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        IFileInfo file = Provider.GetFileInfo(subpath);

        // The file's own name decides: ".dotfile" is hidden, ".hidden/secret.txt" is found (only listings leave out ".hidden/").
        if (IsHidden(name))
        {
            Assert.False(file.Exists);
            return;
        }

        Assert.True(file.Exists);
        Assert.False(file.IsDirectory);
        Assert.Equal(name[(name.LastIndexOf('/') + 1)..], file.Name);
        Assert.Equal(Fixture.Files[name].Length, file.Length);
    }

    [Fact]
    public void GetFileInfo_EveryFile_WasLastModifiedWhenItsOwnTimeSays()
    {
        foreach (string name in Fixture.Files.Keys.Where(name => !IsHidden(name)))
        {
            Assert.Equal(ExpectedLastModified(name), Provider.GetFileInfo(name).LastModified);
        }

        foreach (IFileInfo entry in Provider.GetDirectoryContents("a"))
        {
            Assert.Equal(ExpectedLastModified("a/" + entry.Name), entry.LastModified);
        }
    }

    [Fact]
    public void GetDirectoryContents_FolderWithSpecialEntries_ListsItsRegularFileAlike()
    {
        // A FIFO, a dangling link and a link to a folder: PhysicalFileProvider lists them (and fails or blocks when they
        // are read); FastLoad's providers serve every other file and leave these out.
        string[] expected = ServesSpecialEntries ? ["good.txt", .. FileProviderFixture.SpecialEntries] : ["good.txt"];

        IDirectoryContents contents = Provider.GetDirectoryContents("bad");

        Assert.Equal(expected.Order(StringComparer.Ordinal), contents.Select(e => e.IsDirectory ? e.Name + "/" : e.Name).Order(StringComparer.Ordinal));
        Assert.Equal(Fixture.Files["bad/good.txt"], ReadAll(Provider.GetFileInfo("bad/good.txt").CreateReadStream()));
        Assert.Equal(ServesSpecialEntries && OperatingSystem.IsLinux(), Provider.GetFileInfo("bad/dangling").Exists);
        Assert.Equal(ServesSpecialEntries && OperatingSystem.IsLinux(), Provider.GetDirectoryContents("bad/linked").Exists);
    }

    [Fact]
    public void GetDirectoryContents_EmptyFolder_IsListedWhereTheProviderKeepsEmptyFolders()
    {
        string[] expected = KeepsEmptyFolders ? ["empty/", "x.txt"] : ["x.txt"];

        IDirectoryContents contents = Provider.GetDirectoryContents("folders");

        Assert.Equal(expected, contents.Select(e => e.IsDirectory ? e.Name + "/" : e.Name).Order(StringComparer.Ordinal));
        Assert.Equal(KeepsEmptyFolders, Provider.GetDirectoryContents("folders/empty").Exists);
        Assert.Empty(Provider.GetDirectoryContents("folders/empty"));
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
        Assert.Equal(
            expected.Where(entry => !IsHidden(entry.TrimEnd('/'))).Order(StringComparer.Ordinal),
            contents.Select(e => e.IsDirectory ? e.Name + "/" : e.Name).Order(StringComparer.Ordinal));
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
        foreach ((string name, byte[] expected) in Fixture.Files.Where(file => !IsHidden(file.Key)))
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
        foreach ((string name, byte[] expected) in Fixture.Files.Where(file => !IsHidden(file.Key)))
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

    /// <summary>What the provider reports as <paramref name="name"/>'s last write: the file's or folder's own time on disk.</summary>
    protected virtual DateTimeOffset ExpectedLastModified(string name)
    {
        string path = Fixture.PathOf(name);
        return new DateTimeOffset(Directory.Exists(path) ? Directory.GetLastWriteTimeUtc(path) : File.GetLastWriteTimeUtc(path), TimeSpan.Zero);
    }

    private static byte[] ReadAll(Stream stream)
    {
        var copy = new MemoryStream();
        stream.CopyTo(copy);
        return copy.ToArray();
    }

    /// <summary>Whether the filters hide an entry: by its own name only (the fixture's hidden entries are all dot-prefixed).</summary>
    private bool IsHidden(string name) =>
        (Filters & ExclusionFilters.DotPrefixed) != 0 && name[(name.LastIndexOf('/') + 1)..].StartsWith('.');
}

/// <summary>What FastLoad's providers promise beyond <see cref="PhysicalFileProvider"/>, whose listings follow the file system's order.</summary>
public abstract class FastLoadFileProviderConformanceTests(FileProviderFixture fixture, ExclusionFilters filters)
    : FileProviderConformanceTests(fixture, filters)
{
    [Theory]
    [InlineData("")]
    [InlineData("a")]
    [InlineData("bad")]
    public void GetDirectoryContents_AnyFolder_ListsInOrdinalOrderOfNames(string subpath)
    {
        // "a" (a folder) before "a.txt", though the path "a.txt" sorts before "a/4095.bin": names decide, not paths or load order.
        string[] names = [.. Provider.GetDirectoryContents(subpath).Select(entry => entry.Name)];

        Assert.NotEmpty(names);
        Assert.Equal(names.Order(StringComparer.Ordinal), names);
    }
}

public sealed class PhysicalFileProviderConformanceTests(FileProviderFixture fixture) : FileProviderConformanceTests(fixture, ExclusionFilters.None)
{
    protected override IFileProvider Provider => Fixture.Physical(Filters);

    protected override bool ServesSpecialEntries => true;
}

public sealed class SensitivePhysicalFileProviderConformanceTests(FileProviderFixture fixture) : FileProviderConformanceTests(fixture, ExclusionFilters.Sensitive)
{
    protected override IFileProvider Provider => Fixture.Physical(Filters);

    protected override bool ServesSpecialEntries => true;
}

public sealed class PackFileProviderConformanceTests(FileProviderFixture fixture) : FastLoadFileProviderConformanceTests(fixture, ExclusionFilters.None)
{
    protected override IFileProvider Provider => Fixture.Pack(Filters);

    // A pack records files only, and one time: its own.
    protected override bool KeepsEmptyFolders => false;

    protected override DateTimeOffset ExpectedLastModified(string name) => File.GetLastWriteTimeUtc(Fixture.PackPath);
}

public sealed class SensitivePackFileProviderConformanceTests(FileProviderFixture fixture) : FastLoadFileProviderConformanceTests(fixture, ExclusionFilters.Sensitive)
{
    protected override IFileProvider Provider => Fixture.Pack(Filters);

    protected override bool KeepsEmptyFolders => false;

    protected override DateTimeOffset ExpectedLastModified(string name) => File.GetLastWriteTimeUtc(Fixture.PackPath);
}

public sealed class PreloadedFileProviderConformanceTests(FileProviderFixture fixture) : FastLoadFileProviderConformanceTests(fixture, ExclusionFilters.None)
{
    protected override IFileProvider Provider => Fixture.Preloaded(Filters);
}

public sealed class SensitivePreloadedFileProviderConformanceTests(FileProviderFixture fixture) : FastLoadFileProviderConformanceTests(fixture, ExclusionFilters.Sensitive)
{
    protected override IFileProvider Provider => Fixture.Preloaded(Filters);
}
