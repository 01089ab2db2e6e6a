using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Internals;

/// <summary>
/// Blocks for small files: sized within a quarter of the file, the block returned last rented first (memory already
/// touched), and slabs whose blocks are all back kept up to a limit and unmapped beyond it.
/// </summary>
// The pool is static: these tests run alone, so that no other test takes or returns blocks meanwhile.
[Collection(ProcessWide.Name)]
public class SmallBlockPoolTests
{
    [Theory]
    [InlineData(0, 512)]
    [InlineData(1, 512)]
    [InlineData(512, 512)]
    [InlineData(513, 640)]
    [InlineData(640, 640)]
    [InlineData(641, 768)]
    [InlineData(1024, 1024)]
    [InlineData(1025, 1280)]
    [InlineData(4095, 4096)]
    [InlineData(4096, 4096)]
    [InlineData(4097, 5120)]
    [InlineData(15_000, 16_384)]
    [InlineData(16_385, 20_480)]
    [InlineData(128 * 1024, 128 * 1024)]
    [InlineData((128 * 1024) + 1, 160 * 1024)]
    [InlineData(16 * 1024 * 1024, 16 * 1024 * 1024)]
    public void RoundUp_Length_GivesItsClassAtMostAQuarterLarger(long length, long expected)
    {
        Assert.Equal(expected, SizeClasses.RoundUp(length));
        Assert.Equal(expected, SizeClasses.SizeOf(SizeClasses.Index(length)));
    }

    [Fact]
    public void RoundUp_EveryLengthUpTo16MiB_IsAtLeastItAndAtMostAQuarterMore()
    {
        for (long length = 513; length <= 16L << 20; length = (length * 17 / 16) + 1)
        {
            long size = SizeClasses.RoundUp(length);
            Assert.InRange(size, length, length + (length / 4) + 1);

            // An unbuffered read asks for a whole number of pages and gets a block of whole pages (page-aligned in its slab).
            long pages = NativeBlockPool.RoundUpToPage(length);
            Assert.Equal(0, SizeClasses.RoundUp(pages) % 4096);
        }
    }

    [Fact]
    public unsafe void Rent_AfterAReturn_GivesBackTheBlockReturnedLast()
    {
        NativeContents first = NativeBlockPool.Rent(15_000);
        NativeContents second = NativeBlockPool.Rent(15_000);
        byte* returned = second.Pointer;
        second.Dispose();

        using NativeContents again = NativeBlockPool.Rent(16_000); // The same class: 16 KiB.

        Assert.True(again.Pointer == returned, "the block returned last, already touched, comes back first");
        first.Dispose();
    }

    [Fact]
    public void Return_SlabsBeyondTheRetainedLimit_AreUnmappedAtOnce()
    {
        NativeBlockPool.FreeIdlePooledBlocks();
        Assert.Equal(0, SmallBlockPool.RetainedBytes);

        // 24 MiB of 100 KB files, all out at once, then all back: the slabs beyond 16 MiB go back to the OS.
        var blocks = new List<NativeContents>();
        for (int i = 0; i < 240; i++)
        {
            blocks.Add(NativeBlockPool.Rent(100_000));
        }

        blocks.ForEach(block => block.Dispose());

        Assert.InRange(SmallBlockPool.RetainedBytes, 1, SmallBlockPool.RetainedBytesLimit);
        NativeBlockPool.FreeIdlePooledBlocks();
        Assert.Equal(0, SmallBlockPool.RetainedBytes);
    }
}
