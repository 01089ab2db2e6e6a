using FastLoad.Tests.Infrastructure;
using Microsoft.Extensions.FileProviders;
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

    private byte[] WriteFileBytes(string name, int length, int seed)
    {
        byte[] data = Contents(length, seed);
        WriteFile(name, data);
        return data;
    }
}
