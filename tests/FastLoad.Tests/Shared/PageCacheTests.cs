using FastLoad.Shared;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Storage;

// Page-cache residency is machine-wide state, so these run alone. Even alone, a machine may reclaim a few clean pages
// with most of its memory free (the project VM does), so "cached" means nearly all of the file.
[Collection(ProcessWide.Name)]
public class PageCacheTests : TempDirectoryTestBase
{
    [LinuxFact("posix_fadvise")]
    public void Evict_RegularFile_Succeeds()
    {
        string path = WriteFile("a.bin", 100_000);

        PageCache.Evict(path);

        Assert.True(PageCache.IsEvictionSupported);
    }

    [LinuxFact("a FIFO")]
    public void Evict_Fifo_ThrowsInsteadOfBlocking()
    {
        string fifo = Native.CreateFifo(Path.Combine(Root, "pipe"));

        var ex = Assert.Throws<IOException>(() => PageCache.Evict(fifo));

        Assert.Contains("FIFO", ex.Message);
    }

    [LinuxFact("posix_fadvise")]
    public void Evict_MissingFile_ThrowsFileNotFoundNamingIt()
    {
        string missing = Path.Combine(Root, "missing");

        var ex = Assert.Throws<FileNotFoundException>(() => PageCache.Evict(missing));

        Assert.Contains(missing, ex.Message);
    }

    [LinuxFact("posix_fadvise and mincore")]
    public async Task GetResidentBytes_AfterEvictAndAfterBufferedAndUnbufferedLoads_TellsWhatIsCached()
    {
        const int Size = 32 * 1024 * 1024;
        string path = WriteFile("large.bin", Size);

        PageCache.Evict(path);
        Assert.Equal(0, PageCache.GetResidentBytes(path));

        await Loads.CollectAsync(new FileLoader(new FileLoaderOptions { Buffering = FileBuffering.Unbuffered }), FileSet.FromPaths([path]));
        Assert.Equal(0, PageCache.GetResidentBytes(path)); // Unbuffered: the cache is left as it was.

        await Loads.CollectAsync(new FileLoader(new FileLoaderOptions { Buffering = FileBuffering.Buffered }), FileSet.FromPaths([path]));
        Assert.InRange(PageCache.GetResidentBytes(path), Size * 15L / 16, Size);
    }
}
