using FastLoad.Tests.Infrastructure;
using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.FileProviders.Physical;
using Microsoft.Extensions.Primitives;

namespace FastLoad.Tests.FileProviders;

public class PreloadedFileProviderTests : TempDirectoryTestBase
{
    private string Folder => Path.Combine(Root, "config");

    [Fact]
    public async Task LoadAsync_Folder_ReportsFilesAndTheBytesItHolds()
    {
        WriteFile("config/a.json", 100);
        WriteFile("config/sub/b.json", 2000);
        WriteFile("config/empty.json", 0);

        PreloadedFileProvider provider = await PreloadedFileProvider.LoadAsync(Folder);

        Assert.Equal(3, provider.FileCount);
        Assert.Equal(2100, provider.MemoryUse);
        Assert.Equal(PreloadedFileProvider.DefaultMemoryLimit, provider.MemoryLimit);
        Assert.Equal(64L * 1024 * 1024, PreloadedFileProvider.DefaultMemoryLimit);
        Assert.Equal(Path.GetFullPath(Folder), provider.Root);
    }

    [Fact]
    public async Task LoadAsync_FolderOfExactlyTheLimit_Loads()
    {
        WriteFile("config/a.bin", 600);
        WriteFile("config/b.bin", 400);

        PreloadedFileProvider provider = await PreloadedFileProvider.LoadAsync(Folder, memoryLimit: 1000);

        Assert.Equal(1000, provider.MemoryUse);
    }

    [Fact]
    public async Task LoadAsync_FolderLargerThanTheLimit_ThrowsNamingFolderSizeAndLimit()
    {
        WriteFile("config/a.bin", 600);
        WriteFile("config/b.bin", 401);

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => PreloadedFileProvider.LoadAsync(Folder, memoryLimit: 1000));

        Assert.Contains(Path.GetFullPath(Folder), error.Message, StringComparison.Ordinal);
        Assert.Contains("1,001 bytes", error.Message, StringComparison.Ordinal);
        Assert.Contains("1,000 bytes", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task LoadAsync_FolderLargerThanTheLimit_ReturnsEveryBufferToThePool()
    {
        for (int i = 0; i < 20; i++)
        {
            WriteFile($"config/f{i}.bin", 10_000);
        }

        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { BufferPool = pool });

        await Assert.ThrowsAsync<InvalidOperationException>(() => PreloadedFileProvider.LoadAsync(Folder, memoryLimit: 50_000, loader));

        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public async Task LoadAsync_BadArguments_Throw()
    {
        await Assert.ThrowsAsync<ArgumentException>(() => PreloadedFileProvider.LoadAsync(""));
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => PreloadedFileProvider.LoadAsync(Root, memoryLimit: -1));
        await Assert.ThrowsAsync<DirectoryNotFoundException>(() => PreloadedFileProvider.LoadAsync(Path.Combine(Root, "missing")));
    }

    [Fact]
    public async Task LoadAsync_Canceled_Throws()
    {
        WriteFile("config/a.json", 100);
        using var cancel = new CancellationTokenSource();
        await cancel.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => PreloadedFileProvider.LoadAsync(Folder, cancellationToken: cancel.Token));
    }

    [Fact]
    public async Task GetFileInfo_FileChangedOnDiskAfterTheLoad_ServesTheSnapshot()
    {
        byte[] original = WriteFileBytes("config/a.json", 300, seed: 1);
        PreloadedFileProvider provider = await PreloadedFileProvider.LoadAsync(Folder);
        WriteFile("config/a.json", 500, seed: 2);
        WriteFile("config/new.json", 10);

        IFileInfo file = provider.GetFileInfo("a.json");
        using var copy = new MemoryStream();
        file.CreateReadStream().CopyTo(copy);

        Assert.Equal(original, copy.ToArray());
        Assert.Null(file.PhysicalPath);
        Assert.False(provider.GetFileInfo("new.json").Exists);
        Assert.Same(NullChangeToken.Singleton, provider.Watch("*.json"));
    }

    [LinuxFact]
    public async Task LoadAsync_FifoDanglingLinkAndFolderLink_ServesEveryOtherFileAndReportsThem()
    {
        byte[] good = WriteFileBytes("config/good.json", 300, seed: 1);
        WriteFile("config/sub/other.json", 20);
        string dangling = Path.Combine(Folder, "dangling.json");
        File.CreateSymbolicLink(dangling, Path.Combine(Folder, "missing.json"));
        string fifo = Native.CreateFifo(Path.Combine(Folder, "pipe"));
        string linked = Path.Combine(Folder, "linked");
        Directory.CreateSymbolicLink(linked, Path.Combine(Folder, "sub"));

        PreloadedFileProvider provider = await PreloadedFileProvider.LoadAsync(Folder);

        Assert.Equal(2, provider.FileCount);
        Assert.Equal(320, provider.MemoryUse);
        Assert.Equal(good, ReadAll(provider.GetFileInfo("good.json")));
        Assert.Equal([dangling, linked, fifo], provider.Skipped.Select(skipped => skipped.Path));
        Assert.IsType<FileNotFoundException>(provider.Skipped[0].Exception);
        Assert.Contains("link to a folder", provider.Skipped[1].Exception.Message, StringComparison.Ordinal);
        Assert.Contains("FIFO", provider.Skipped[2].Exception.Message, StringComparison.Ordinal);
        Assert.All(provider.Skipped, skipped => Assert.Contains(skipped.Path, skipped.Exception.Message, StringComparison.Ordinal));
        Assert.Equal(["good.json", "sub"], provider.GetDirectoryContents("").Select(entry => entry.Name));
    }

    [LinuxFact]
    public async Task LoadAsync_LoaderThatThrowsOnFailures_StillSkipsAndLogsEachSkippedEntryThroughIt()
    {
        WriteFile("config/good.json", 10);
        string fifo = Native.CreateFifo(Path.Combine(Folder, "pipe"));
        string linked = Path.Combine(Folder, "linked");
        Directory.CreateSymbolicLink(linked, Root);
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);
        var loader = new FileLoader(new FileLoaderOptions { ErrorHandling = LoadErrorHandling.Throw }, loggerFactory);

        PreloadedFileProvider provider = await PreloadedFileProvider.LoadAsync(Folder, loader: loader);

        Assert.Equal(1, provider.FileCount);
        Assert.Equal([linked, fifo], provider.Skipped.Select(skipped => skipped.Path));
        string[] logged = [.. logs.GetSnapshot().Where(entry => entry.Id.Id == FastLoadEventId.FileFailed).Select(entry => entry.Message)];
        Assert.Equal(2, logged.Length);
        Assert.Contains(logged, message => message.Contains(linked, StringComparison.Ordinal));
        Assert.Contains(logged, message => message.Contains(fifo, StringComparison.Ordinal));
    }

    [LinuxFact]
    public async Task LoadAsync_SubfolderThatCannotBeRead_IsSkippedAndTheRestServed()
    {
        // Root reads any folder whatever its mode; a folder whose full path is longer than PATH_MAX (4,096) cannot be
        // opened by anyone. mkdir -p makes it one level at a time.
        WriteFile("config/good.json", 10);
        string deep = Folder;
        while (deep.Length < 4200)
        {
            deep = Path.Combine(deep, new string('d', 200));
        }

        using (var mkdir = System.Diagnostics.Process.Start("mkdir", ["-p", deep]))
        {
            await mkdir.WaitForExitAsync();
            Assert.Equal(0, mkdir.ExitCode);
        }

        try
        {
            PreloadedFileProvider provider = await PreloadedFileProvider.LoadAsync(Folder);

            Assert.Equal(1, provider.FileCount);
            LoadFailure skipped = Assert.Single(provider.Skipped);
            Assert.True(skipped.Path.Length > 4096, skipped.Path);
            Assert.IsAssignableFrom<IOException>(skipped.Exception);
        }
        finally
        {
            // Directory.Delete cannot reach past PATH_MAX either.
            using var rm = System.Diagnostics.Process.Start("rm", ["-rf", Path.Combine(Folder, new string('d', 200))]);
            await rm.WaitForExitAsync();
        }
    }

    [LinuxFact]
    public async Task GetFileInfo_LinkToAFile_HasTheTargetsBytesAndTime()
    {
        byte[] data = WriteFileBytes("target.json", 50, seed: 4);
        var targetTime = new DateTime(2022, 5, 6, 7, 8, 9, DateTimeKind.Utc);
        File.SetLastWriteTimeUtc(Path.Combine(Root, "target.json"), targetTime);
        Directory.CreateDirectory(Folder);
        File.CreateSymbolicLink(Path.Combine(Folder, "link.json"), Path.Combine(Root, "target.json"));

        PreloadedFileProvider provider = await PreloadedFileProvider.LoadAsync(Folder);

        IFileInfo file = provider.GetFileInfo("link.json");
        Assert.Equal(data, ReadAll(file));
        Assert.Equal(50, file.Length);
        Assert.Equal(targetTime, file.LastModified.UtcDateTime);
    }

    [Fact]
    public async Task LoadAsync_TwoLoadsOfTheSameFolder_GiveTheSameTimesAndListings()
    {
        // What a browser or CDN sees across restarts and instances: the ETag comes from the length and the time.
        for (int i = 0; i < 30; i++)
        {
            WriteFile($"config/f{(i * 7) % 30:D2}.json", 10 + i);
        }

        var loader = new FileLoader(new FileLoaderOptions { Ordering = LoadOrdering.Completion, MaxDegreeOfParallelism = 8 });
        PreloadedFileProvider first = await PreloadedFileProvider.LoadAsync(Folder, loader: loader);
        PreloadedFileProvider second = await PreloadedFileProvider.LoadAsync(Folder, loader: loader);

        (string, DateTimeOffset)[] Listing(PreloadedFileProvider provider) =>
            [.. provider.GetDirectoryContents("").Select(entry => (entry.Name, entry.LastModified))];
        Assert.Equal(Listing(first), Listing(second));
        Assert.Equal(Enumerable.Range(0, 30).Select(i => $"f{i:D2}.json"), Listing(first).Select(entry => entry.Item1));
        Assert.All(Listing(first), entry => Assert.Equal(File.GetLastWriteTimeUtc(Path.Combine(Folder, entry.Item1)), entry.Item2.UtcDateTime));
    }

    [Theory]
    [InlineData(ExclusionFilters.Sensitive, 100)]
    [InlineData(ExclusionFilters.None, 150)]
    public async Task LoadAsync_HiddenFiles_AreNeitherServedNorHeld(ExclusionFilters filters, long memoryUse)
    {
        WriteFile("config/app.json", 100);
        WriteFile("config/.env", 50);

        PreloadedFileProvider provider = await PreloadedFileProvider.LoadAsync(Folder, filters: filters);

        Assert.Equal(memoryUse, provider.MemoryUse);
        Assert.Equal(filters == ExclusionFilters.None, provider.GetFileInfo(".env").Exists);
        Assert.Equal(filters, provider.Filters);
        Assert.Empty(provider.Skipped);
    }

    [Fact]
    public async Task LoadAsync_DefaultFilters_AreSensitiveAsPhysicalFileProvidersAre()
    {
        WriteFile("config/.env", 5);

        PreloadedFileProvider provider = await PreloadedFileProvider.LoadAsync(Folder);

        Assert.Equal(ExclusionFilters.Sensitive, provider.Filters);
        Assert.False(provider.GetFileInfo(".env").Exists);
        Assert.Equal(0, provider.FileCount);
    }

    private static byte[] ReadAll(IFileInfo file)
    {
        using Stream stream = file.CreateReadStream();
        using var copy = new MemoryStream();
        stream.CopyTo(copy);
        return copy.ToArray();
    }

    private byte[] WriteFileBytes(string name, int length, int seed)
    {
        byte[] data = Contents(length, seed);
        WriteFile(name, data);
        return data;
    }
}
