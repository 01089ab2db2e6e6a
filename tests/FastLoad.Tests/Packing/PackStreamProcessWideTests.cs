using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Packing;

/// <summary>
/// Pack entry streams measured against the whole process: the bytes a read allocates, on whatever thread. Alone in
/// their collection, so that no other test allocates meanwhile.
/// </summary>
[Collection(ProcessWide.Name)]
public sealed class PackStreamProcessWideTests : PackTestBase
{
    private const int EntryLength = 64 * 1024 * 1024;

    [Fact]
    public async Task Read_HundredBytesDeepInALargeEntry_AllocatesAboutOneBlock()
    {
        byte[] large = TestData.Create(TestData.Mixed, EntryLength, seed: 5);
        WriteFile("src/large.bin", large);
        await PackWriter.CreateAsync(PackPath, Source); // 1 MiB blocks
        await using PackFileProvider provider = await PackFileProvider.OpenAsync(PackPath);
        byte[] buffer = new byte[100];
        const int Offset = 50 * 1024 * 1024;
        using (Stream first = provider.GetFileInfo("large.bin").CreateReadStream())
        {
            first.Position = Offset + 1;
            first.ReadExactly(buffer); // the first call's own costs (code, the cache) out of the way
        }

        long before = GC.GetTotalAllocatedBytes(precise: true);
        using Stream stream = provider.GetFileInfo("large.bin").CreateReadStream();
        stream.Position = Offset - 1_048_576 + 7; // another block
        stream.ReadExactly(buffer);
        long allocated = GC.GetTotalAllocatedBytes(precise: true) - before;

        Assert.Equal(large.AsSpan(Offset - 1_048_576 + 7, 100).ToArray(), buffer);
        // One block decoded (1 MiB) and its compressed bytes (under 1 MiB); the entry is 64 MiB.
        Assert.InRange(allocated, 0, 4 * 1024 * 1024);
    }
}
