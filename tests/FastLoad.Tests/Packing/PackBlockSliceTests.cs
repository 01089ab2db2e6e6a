using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Packing;

/// <summary>
/// A whole-pack load hands over each entry that lies in one block as a view of the decoded block: the block's buffer
/// is rented once for all its entries and goes back to the pool exactly once, when the load and every entry of it are done.
/// </summary>
public sealed class PackBlockSliceTests : PackTestBase
{
    [Fact]
    public async Task LoadAllAsync_ManyEntriesPerBlock_RentsABufferPerBlockNotPerEntry()
    {
        Dictionary<string, byte[]> files = WriteSource(TestData.Mixed, Enumerable.Range(0, 64).Select(i => 100 + (i * 37)).ToArray());
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = 64 * 1024 });
        var pool = new CountingPool();

        Dictionary<string, byte[]> loaded = await LoadAllAsync(PackPath, new PackReaderOptions { BufferPool = pool });

        Assert.Equal(files.Keys.Order(StringComparer.Ordinal), loaded.Keys.Order(StringComparer.Ordinal));
        Assert.All(files, file => Assert.Equal(file.Value, loaded[file.Key]));

        // 64 entries (81 KB) in two blocks: per block a decoded buffer and a compressed one, and one buffer for the entry
        // that goes on over the block's edge; never one per entry.
        Assert.True(pool.RentCount <= 5, $"{pool.RentCount} buffers rented for 64 entries in 2 blocks");
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task LoadAllAsync_EntriesKeptPastTheLoadAndTheReader_KeepTheirBytesUntilDisposed()
    {
        Dictionary<string, byte[]> files = WriteSource(TestData.Mixed, 10, 5000, 0, 9000, 3, 4096, 4097, 12_000);
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = SmallBlock });
        var pool = new CountingPool();
        var kept = new List<LoadedFile>();

        await using (PackReader reader = await PackReader.OpenAsync(PackPath, new PackReaderOptions { BufferPool = pool }))
        {
            await foreach (LoadedFile entry in reader.LoadAllAsync())
            {
                kept.Add(entry);
            }
        }

        Assert.True(pool.Outstanding > 0, "the kept entries hold their blocks");
        foreach (LoadedFile entry in kept)
        {
            Assert.Equal(files[entry.Path], entry.Data.ToArray());
        }

        // Disposed out of order, and twice: every buffer goes back once.
        foreach (LoadedFile entry in Enumerable.Reverse(kept))
        {
            entry.Dispose();
            entry.Dispose();
        }

        pool.AssertAllReturned();
    }

    [Fact]
    public async Task LoadAllAsync_OneEntryOfABlockKept_KeepsOnlyThatBlockUntilItIsDisposed()
    {
        Dictionary<string, byte[]> files = WriteSource(TestData.Random, Enumerable.Repeat(1000, 12).ToArray()); // three per 4 KiB block, stored raw
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = SmallBlock });
        var pool = new CountingPool();
        LoadedFile? kept = null;

        await using (PackReader reader = await PackReader.OpenAsync(PackPath, new PackReaderOptions { BufferPool = pool }))
        {
            await foreach (LoadedFile entry in reader.LoadAllAsync())
            {
                // An entry of the second block: the first is read while the pack opens, into a pool of the reader's own.
                if (kept is null && entry.Index == 4)
                {
                    kept = entry;
                    continue;
                }

                entry.Dispose();
            }
        }

        Assert.NotNull(kept);
        Assert.Equal(1, pool.Outstanding);
        Assert.Equal(files[kept.Path], kept.Data.ToArray());
        kept.Dispose();
        pool.AssertAllReturned();
        Assert.Throws<ObjectDisposedException>(() => kept.Data);
    }
}
