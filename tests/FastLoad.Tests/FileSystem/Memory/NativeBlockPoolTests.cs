using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Internals;

// The pool is static: these tests run alone, so that no other test takes or returns blocks meanwhile.
[Collection(ProcessWide.Name)]
public class NativeBlockPoolTests
{
    private const long MiB = 1024 * 1024;

    [Theory]
    [InlineData(16 * MiB + 1, 18 * MiB)]
    [InlineData(17 * MiB, 18 * MiB)]
    [InlineData(32 * MiB, 32 * MiB)]
    [InlineData(33 * MiB, 34 * MiB)]
    [InlineData(100 * MiB, 100 * MiB)]
    [InlineData(101 * MiB, 104 * MiB)]
    [InlineData(1024 * MiB, 1024 * MiB)]
    [InlineData(1024 * MiB + 1, 1088 * MiB)]
    public void LargeSizeClass_RoundsUpToASixteenthOfThePowerOfTwoBelow(long length, long expected) =>
        Assert.Equal(expected, NativeBlockPool.LargeSizeClass(length));

    [Fact]
    public void LargeSizeClass_NeverLessThanTheLengthNorMoreThanASixteenthAbove()
    {
        for (long length = 16 * MiB + 1; length < 8L << 30; length = length * 9 / 8 + 12_345)
        {
            long size = NativeBlockPool.LargeSizeClass(length);
            Assert.InRange(size, length, length + (length / 16) + NativeBlockPool.HugePageSize);
            Assert.Equal(0, size % NativeBlockPool.HugePageSize);
            Assert.Equal(size, NativeBlockPool.Footprint(length));
        }
    }

    [LinuxTheory("mremap")]
    [InlineData(3 * MiB, 1 * MiB)]
    [InlineData(1 * MiB, 3 * MiB)]
    public unsafe void Rent_NoIdleBlockOfItsSize_TakesAnIdleBlockOfAnotherSizeResized(long idleLength, long length)
    {
        // Files of many sizes would otherwise each map a fresh block while idle blocks of other sizes wait.
        NativeBlockPool.FreeIdlePooledBlocks();
        NativeContents idle = NativeBlockPool.Rent(idleLength);
        idle.Slice(0, 4096).Fill(0xA5);
        idle.Dispose();
        Assert.Equal(NativeBlockPool.Footprint(idleLength), NativeBlockPool.RetainedPooledBytes);

        NativeContents resized = NativeBlockPool.Rent(length);

        Assert.Equal(0, NativeBlockPool.RetainedPooledBytes);
        Assert.Equal(0L, (long)resized.Pointer % NativeBlockPool.Alignment);
        Assert.True(resized.Slice(0, 4096).IndexOfAnyExcept((byte)0xA5) < 0, "the block's first page kept its bytes: it is the idle block, not a fresh one");
        resized.Slice(0, (int)length).Fill(0x5A); // Every byte of its new size is there to be written.
        resized.Dispose();
        Assert.Equal(NativeBlockPool.Footprint(length), NativeBlockPool.RetainedPooledBytes);
        NativeBlockPool.FreeIdlePooledBlocks();
    }

    [Fact]
    public unsafe void Rent_AfterALargeBlockWasDisposed_ReusesItUntilItHasBeenIdleTooLong()
    {
        NativeBlockPool.TrimIdleLargeBlocks(long.MaxValue);
        Assert.Equal(0, NativeBlockPool.RetainedLargeBytes);

        NativeContents first = NativeBlockPool.Rent(40 * MiB);
        byte* address = first.Pointer;
        first.Slice(0, 4096).Fill(0xA5);
        first.Dispose();
        Assert.Equal(NativeBlockPool.LargeSizeClass(40 * MiB), NativeBlockPool.RetainedLargeBytes);

        // A file of another size in the same class gets the same block, and it is no longer idle.
        NativeContents second = NativeBlockPool.Rent((40 * MiB) - 12_345);
        Assert.True(second.Pointer == address);
        Assert.Equal(0, NativeBlockPool.RetainedLargeBytes);
        second.Dispose();

        // A block idle for less than the idle time stays; one idle for longer goes back to the OS.
        NativeBlockPool.TrimIdleLargeBlocks(Environment.TickCount64);
        Assert.Equal(NativeBlockPool.LargeSizeClass(40 * MiB), NativeBlockPool.RetainedLargeBytes);
        NativeBlockPool.TrimIdleLargeBlocks(Environment.TickCount64 + (long)NativeBlockPool.LargeBlockIdleTime.TotalMilliseconds);
        Assert.Equal(0, NativeBlockPool.RetainedLargeBytes);
    }

    [Theory]
    [InlineData(200 * 1024)]
    [InlineData(1 * MiB)]
    [InlineData(16 * MiB)]
    public void Return_MoreBlocksOfASizeThanTheLimitKeeps_KeepsUpToTheLimitAndRentsThemAgain(long length)
    {
        NativeBlockPool.FreeIdlePooledBlocks();
        Assert.Equal(0, NativeBlockPool.RetainedPooledBytes);
        long size = NativeBlockPool.Footprint(length);
        int count = (int)(NativeBlockPool.RetainedBytesLimit / size) + 2;
        var blocks = new List<NativeContents>();
        for (int i = 0; i < count; i++)
        {
            blocks.Add(NativeBlockPool.Rent(length));
        }

        blocks.ForEach(block => block.Dispose());
        long retained = NativeBlockPool.RetainedPooledBytes;
        Assert.Equal(NativeBlockPool.RetainedBytesLimit / size * size, retained);

        // The next rent of that size takes a kept block rather than mapping a fresh one.
        using NativeContents again = NativeBlockPool.Rent(length);
        Assert.Equal(retained - size, NativeBlockPool.RetainedPooledBytes);
    }

    [Fact]
    public void Rent_OfAnotherSizeClass_FreesTheIdleBlocksBeforeMappingAFreshOne()
    {
        NativeBlockPool.TrimIdleLargeBlocks(long.MaxValue);
        NativeContents first = NativeBlockPool.Rent(40 * MiB);
        NativeContents second = NativeBlockPool.Rent(60 * MiB);
        first.Dispose();
        second.Dispose();
        Assert.Equal(NativeBlockPool.LargeSizeClass(40 * MiB) + NativeBlockPool.LargeSizeClass(60 * MiB), NativeBlockPool.RetainedLargeBytes);

        // Idle and used blocks together never exceed what was in use at once when a block was last mapped.
        using NativeContents larger = NativeBlockPool.Rent(80 * MiB);
        Assert.Equal(0, NativeBlockPool.RetainedLargeBytes);
    }

    [Fact]
    public async Task IdleLargeBlocks_AreFreedByTheTimerWithoutAnotherCall()
    {
        NativeBlockPool.TrimIdleLargeBlocks(long.MaxValue);
        NativeBlockPool.Rent(20 * MiB).Dispose();
        Assert.NotEqual(0, NativeBlockPool.RetainedLargeBytes);

        // Idle for one to two periods; poll with a generous bound so that a slow CI machine does not fail it.
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(30);
        while (NativeBlockPool.RetainedLargeBytes != 0 && DateTime.UtcNow < deadline)
        {
            await Task.Delay(100);
        }

        Assert.Equal(0, NativeBlockPool.RetainedLargeBytes);
    }

    [LinuxTheory("MADV_POPULATE_WRITE")]
    [InlineData(15_000)] // A block of a slab.
    [InlineData(MiB)]
    [InlineData(16 * MiB)]
    public unsafe void Rent_AFreshBlock_IsInMemoryBeforeItIsWritten(long length)
    {
        if (Environment.OSVersion.Version < new Version(5, 14))
        {
            Assert.Skip($"Linux {Environment.OSVersion.Version} has no MADV_POPULATE_WRITE (5.14 or later).");
        }

        NativeBlockPool.FreeIdlePooledBlocks();
        using NativeContents block = NativeBlockPool.Rent(length);

        // A page the reads would fault in one at a time is mapped already (mincore: bit 0 of a page's byte).
        long pages = NativeBlockPool.RoundUpToPage(length) / 4096;
        byte[] resident = new byte[pages];
        fixed (byte* vector = resident)
        {
            byte* page = (byte*)((nuint)block.Pointer & ~(nuint)4095);
            Assert.Equal(0, Interop.Mincore(page, (nuint)(pages * 4096), vector));
        }

        Assert.All(resident, state => Assert.Equal(1, state & 1));
    }

    [LinuxFact("MADV_POPULATE_WRITE")]
    public unsafe void Rent_FromAFreshSlab_PopulatesTheBlocksItHandsOutNotTheWholeSlab()
    {
        if (Environment.OSVersion.Version < new Version(5, 14))
        {
            Assert.Skip($"Linux {Environment.OSVersion.Version} has no MADV_POPULATE_WRITE (5.14 or later).");
        }

        NativeBlockPool.FreeIdlePooledBlocks();

        // Blocks of 16 KiB, eight to a slab of 128 KiB; the first is at the slab's start.
        using NativeContents first = NativeBlockPool.Rent(15_000);
        const int slabPages = 32;
        byte[] resident = new byte[slabPages];
        fixed (byte* vector = resident)
        {
            Assert.Equal(0, Interop.Mincore(first.Pointer, slabPages * 4096, vector));
        }

        // The block and the next 64 KiB at most (one call populates ahead), not the rest of the slab.
        Assert.All(resident[..4], state => Assert.Equal(1, state & 1));
        Assert.All(resident[16..], state => Assert.Equal(0, state & 1));
    }
}
