using FastLoad.Shared;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Storage;

// Page-cache residency is machine-wide state: the >2 GiB tests running beside it can make the kernel reclaim a few
// clean pages (seen in CI: 256 KiB of 32 MiB gone), so these run alone.
[Collection(ProcessWide.Name)]
public class PageCacheTests : TempDirectoryTestBase
{
    [LinuxFact]
    public void Evict_RegularFile_Succeeds()
    {
        string path = WriteFile("a.bin", 100_000);

        PageCache.Evict(path);

        Assert.True(PageCache.IsEvictionSupported);
    }

    [LinuxFact]
    public void Evict_Fifo_ThrowsInsteadOfBlocking()
    {
        string fifo = Native.CreateFifo(Path.Combine(Root, "pipe"));

        var ex = Assert.Throws<IOException>(() => PageCache.Evict(fifo));

        Assert.Contains("FIFO", ex.Message);
    }

    [LinuxFact]
    public void Evict_MissingFile_ThrowsFileNotFoundNamingIt()
    {
        string missing = Path.Combine(Root, "missing");

        var ex = Assert.Throws<FileNotFoundException>(() => PageCache.Evict(missing));

        Assert.Contains(missing, ex.Message);
    }

    [LinuxFact]
    public async Task GetResidentBytes_AfterEvictAndAfterBufferedAndUnbufferedLoads_TellsWhatIsCached()
    {
        const int Size = 32 * 1024 * 1024;
        string path = WriteFile("large.bin", Size);

        PageCache.Evict(path);
        Assert.Equal(0, PageCache.GetResidentBytes(path));

        await Loads.CollectAsync(new FileLoader(new FileLoaderOptions { Buffering = FileBuffering.Unbuffered }), FileSet.FromPaths([path]));
        Assert.Equal(0, PageCache.GetResidentBytes(path)); // Unbuffered: the cache is left as it was.

        await Loads.CollectAsync(new FileLoader(new FileLoaderOptions { Buffering = FileBuffering.Buffered }), FileSet.FromPaths([path]));
        Assert.Equal(Size, PageCache.GetResidentBytes(path));
    }
}
