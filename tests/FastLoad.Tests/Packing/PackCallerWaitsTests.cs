using FastLoad.Packing;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Packing;

/// <summary>
/// A new process has no thread pool threads: there the pack opens and loads on the calling thread, waiting for its
/// block threads, so that nothing starts the pool. Tests run where the pool has started, so they force the choice.
/// </summary>
public sealed class PackCallerWaitsTests : PackTestBase
{
    [Fact]
    public async Task LoadAll_CallerWaits_RunsToTheEndOnTheCallingThread()
    {
        Dictionary<string, byte[]> files = WriteSource(TestData.Text, Enumerable.Repeat(60_000, 24).ToArray());
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = 64 * 1024 });

        // Nothing in it waits asynchronously, so the whole load has run when the call returns.
        Task<Dictionary<string, byte[]>> load = CallerWaitsForced.Run(() => LoadAllAsync(PackPath));

        Assert.True(load.IsCompletedSuccessfully, $"the load was left {load.Status}");
        Dictionary<string, byte[]> loaded = await load;
        Assert.Equal(files.Keys.Order(), loaded.Keys.Order());
        foreach ((string name, byte[] data) in files)
        {
            Assert.Equal(data, loaded[name]);
        }
    }

    [Fact]
    public async Task OpenAsync_CallerWaits_CorruptPack_FailsTheTaskRatherThanThrowing()
    {
        byte[] pack = await SmallPackAsync();
        pack[0] ^= 0xFF; // the magic number
        string path = Path.Combine(Root, "corrupt.fpk");
        await File.WriteAllBytesAsync(path, pack);

        Task<PackReader> open = CallerWaitsForced.Run(() => PackReader.OpenAsync(path));

        Assert.True(open.IsFaulted, $"the open was left {open.Status}");
        await Assert.ThrowsAsync<InvalidDataException>(() => open);
    }

    [Fact]
    public async Task OpenAsync_CallerWaits_Canceled_CancelsTheTask()
    {
        await File.WriteAllBytesAsync(PackPath, await SmallPackAsync());

        var canceled = new CancellationToken(canceled: true);
        Task<PackReader> open = CallerWaitsForced.Run(() => PackReader.OpenAsync(PackPath, canceled));

        Assert.True(open.IsCanceled, $"the open was left {open.Status}");
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => open);
    }

    [Fact]
    public async Task LoadAll_CallerWaits_CorruptBlock_FailsNamingItAndReturnsEveryBuffer()
    {
        byte[] pack = await SmallPackAsync();
        (int indexOffset, _) = Footer(pack);
        pack[indexOffset - 2] ^= 0xFF; // the last block's stored bytes: its hash no longer matches
        string path = Path.Combine(Root, "corrupt.fpk");
        await File.WriteAllBytesAsync(path, pack);
        var pool = new CountingPool();

        var options = new PackReaderOptions { BufferPool = pool };
        Task<Dictionary<string, byte[]>> load = CallerWaitsForced.Run(() => LoadAllAsync(path, options));

        Assert.True(load.IsFaulted, $"the load was left {load.Status}");
        InvalidDataException error = await Assert.ThrowsAsync<InvalidDataException>(() => load);
        Assert.Contains("block", error.Message, StringComparison.Ordinal);
        pool.AssertAllReturned();
    }
}
