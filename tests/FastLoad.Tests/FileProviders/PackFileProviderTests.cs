using FastLoad.Tests.Infrastructure;
using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.FileProviders.Physical;
using Microsoft.Extensions.Primitives;

namespace FastLoad.Tests.FileProviders;

public class PackFileProviderTests : TempDirectoryTestBase
{
    private string PackPath => Path.Combine(Root, "p.fpk");

    private async Task<byte[]> PackOneAsync(int length = 5000)
    {
        byte[] data = Contents(length, seed: 3);
        WriteFile("src/dir/f.bin", data);
        await PackWriter.CreateAsync(PackPath, Path.Combine(Root, "src"));
        return data;
    }

    [Fact]
    public async Task OpenAsync_ReadsEntriesByName_ReadsNoBlockAheadForAWholePackLoad()
    {
        // A reader opened for LoadAllAsync starts on the first block at once; a provider reads entries by name, so a
        // block read ahead would be a read and a decode at every start for nothing.
        byte[] data = await PackOneAsync();
        await using PackReader reader = await PackReader.OpenAsync(PackPath);
        await using PackFileProvider provider = await PackFileProvider.OpenAsync(PackPath);

        Assert.True(reader.ReadsFirstBlockAhead);
        Assert.False(provider.Reader.ReadsFirstBlockAhead);
        await using Stream stream = provider.GetFileInfo("dir/f.bin").CreateReadStream();
        using var copy = new MemoryStream();
        await stream.CopyToAsync(copy);
        Assert.Equal(data, copy.ToArray());
    }

    [Fact]
    public async Task Watch_AnyFilter_ReturnsATokenThatNeverFires()
    {
        await PackOneAsync();
        await using PackFileProvider provider = await PackFileProvider.OpenAsync(PackPath);

        IChangeToken token = provider.Watch("**/*");

        Assert.Same(NullChangeToken.Singleton, token);
        Assert.False(token.HasChanged);
        Assert.False(token.ActiveChangeCallbacks);
    }

    [Fact]
    public async Task GetFileInfo_Entry_HasThePacksTimeAndNoPhysicalPath()
    {
        await PackOneAsync();
        await using PackFileProvider provider = await PackFileProvider.OpenAsync(PackPath);

        IFileInfo file = provider.GetFileInfo("dir/f.bin");

        Assert.Null(file.PhysicalPath);
        Assert.Equal(File.GetLastWriteTimeUtc(PackPath), file.LastModified.UtcDateTime);
    }

    [Fact]
    public async Task DisposeAsync_OwnedReader_ClosesThePackAndStreamsThenFail()
    {
        await PackOneAsync();
        PackFileProvider provider = await PackFileProvider.OpenAsync(PackPath);
        Stream stream = provider.GetFileInfo("dir/f.bin").CreateReadStream();

        await provider.DisposeAsync();

        Assert.Throws<ObjectDisposedException>(() => stream.ReadExactly(new byte[10]));
        Assert.Throws<ObjectDisposedException>(() => provider.Reader.LoadAllAsync());
    }

    [Fact]
    public async Task DisposeAsync_StreamThatHasStartedReading_ThrowsAtItsNextRead()
    {
        // A stream reads its entry block by block from the pack (it holds no copy of the whole entry), so once the pack
        // is closed its next read throws, as the test above's first read does (docs/integrations.md).
        byte[] data = await PackOneAsync();
        PackFileProvider provider = await PackFileProvider.OpenAsync(PackPath);
        using Stream stream = provider.GetFileInfo("dir/f.bin").CreateReadStream();
        byte[] start = new byte[10];
        stream.ReadExactly(start);
        Assert.Equal(data[..10], start);

        await provider.DisposeAsync();

        Assert.Throws<ObjectDisposedException>(() => stream.ReadExactly(new byte[10]));
    }

    [Fact]
    public async Task OpenAsync_DefaultFilters_HideDotPrefixedEntriesAsPhysicalFileProviderDoes()
    {
        WriteFile("site/index.html", 10);
        WriteFile("site/.env", 20);
        WriteFile("site/.well-known/security.txt", 30);
        await PackWriter.CreateAsync(PackPath, Path.Combine(Root, "site"));

        await using PackFileProvider provider = await PackFileProvider.OpenAsync(PackPath);

        Assert.Equal(ExclusionFilters.Sensitive, provider.Filters);
        Assert.False(provider.GetFileInfo(".env").Exists);
        Assert.Equal(["index.html"], provider.GetDirectoryContents("").Select(entry => entry.Name));
        // The file's own name decides, as on disk: a dot-prefixed folder is left out of listings, its files are served.
        Assert.Equal(30, provider.GetFileInfo(".well-known/security.txt").Length);
        Assert.Equal(["security.txt"], provider.GetDirectoryContents(".well-known").Select(entry => entry.Name));
    }

    [Fact]
    public async Task OpenAsync_FiltersNone_ServesEveryEntry()
    {
        WriteFile("site/.env", 20);
        await PackWriter.CreateAsync(PackPath, Path.Combine(Root, "site"));
        await using PackReader reader = await PackReader.OpenAsync(PackPath);

        var provider = new PackFileProvider(reader, filters: ExclusionFilters.None);

        Assert.Equal(20, provider.GetFileInfo(".env").Length);
        Assert.Equal([".env"], provider.GetDirectoryContents("").Select(entry => entry.Name));
    }

    [Fact]
    public async Task Dispose_ReaderNotOwned_LeavesItOpen()
    {
        byte[] data = await PackOneAsync();
        await using PackReader reader = await PackReader.OpenAsync(PackPath);

        new PackFileProvider(reader).Dispose();

        Assert.Equal(data, (await reader.ReadEntryAsync("dir/f.bin")).ToArray());
    }

    [Fact]
    public async Task CreateReadStream_IsLazy_TheEntryIsReadAtTheFirstRead()
    {
        byte[] data = await PackOneAsync();
        await using PackFileProvider provider = await PackFileProvider.OpenAsync(PackPath);

        // Opening a stream reads nothing: a stream opened on a pack already closed fails only when read.
        using Stream stream = provider.GetFileInfo("dir/f.bin").CreateReadStream();
        Assert.Equal(data.Length, stream.Length);
        Assert.Equal(0, stream.Read([]));
        Assert.Equal(0, stream.Position);
        byte[] all = new byte[data.Length];
        stream.ReadExactly(all);
        Assert.Equal(data, all);
    }

    [Fact]
    public async Task CreateReadStream_EntryCorruptedOnDisk_ReadFailsWithInvalidData()
    {
        byte[] data = await PackOneAsync(length: 100);
        byte[] pack = await File.ReadAllBytesAsync(PackPath);
        int at = pack.AsSpan().IndexOf(data.AsSpan(0, 16));
        Assert.True(at > 0, "a short random entry is stored raw");
        pack[at + 3] ^= 0xFF;
        await File.WriteAllBytesAsync(PackPath, pack);
        await using PackFileProvider provider = await PackFileProvider.OpenAsync(PackPath);
        using Stream stream = provider.GetFileInfo("dir/f.bin").CreateReadStream();

        await Assert.ThrowsAsync<InvalidDataException>(async () => await stream.ReadExactlyAsync(new byte[10]));
    }

    [Fact]
    public void Constructor_NullReader_Throws()
    {
        Assert.Throws<ArgumentNullException>(() => new PackFileProvider(null!));
    }
}
