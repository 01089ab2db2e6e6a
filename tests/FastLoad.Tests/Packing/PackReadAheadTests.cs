using System.Collections.Concurrent;
using FastLoad.Packing;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Packing;

/// <summary>
/// Where the kernel reads a pack ahead of its block threads, a whole-pack load runs one thread per core: the advice covers
/// the data in order, each byte once, never past the data's end nor further than its distance ahead.
/// </summary>
public sealed class PackReadAheadTests : PackTestBase
{
    [Fact]
    public void Advance_FromTheStart_AdvisesTheDistanceAheadInChunksOnce()
    {
        var ranges = new List<(long Offset, long Length)>();
        var readAhead = new PackReadAhead(16, 100L * 1024 * 1024, (offset, length) => ranges.Add((offset, length)));

        readAhead.Advance(16);
        readAhead.Advance(16);
        readAhead.Advance(1024);

        // No piece larger than the smallest largest-request of a disk (128 KiB): the kernel would read only part of it.
        Assert.All(ranges, range => Assert.InRange(range.Length, 1, 128 * 1024));
        AssertContiguousFrom(16, ranges);
        long end = ranges[^1].Offset + ranges[^1].Length;
        Assert.Equal(1024 + PackReadAhead.Distance, end);
    }

    [Fact]
    public void Advance_NearTheEnd_StopsAtTheEndOfTheData()
    {
        var ranges = new List<(long Offset, long Length)>();
        const long End = (3 * PackReadAhead.Chunk) + 5;
        var readAhead = new PackReadAhead(16, End, (offset, length) => ranges.Add((offset, length)));

        readAhead.Advance(16);
        readAhead.Advance(End - 1);

        AssertContiguousFrom(16, ranges);
        Assert.Equal(End, ranges[^1].Offset + ranges[^1].Length);
    }

    [Fact]
    public async Task Advance_OnItsOwnThread_ReturnsWhileAdvisingAndDisposeStopsAfterThePieceInProgress()
    {
        // On a cold device each piece of advice waits for room in the device's queue: the load must not wait for it.
        using var entered = new SemaphoreSlim(0);
        using var release = new ManualResetEventSlim();
        var ranges = new ConcurrentQueue<(long Offset, long Length)>();
        var readAhead = new PackReadAhead(
            16,
            100L * 1024 * 1024,
            (offset, length) =>
            {
                ranges.Enqueue((offset, length));
                entered.Release();
                release.Wait();
            },
            adviseOnCaller: false);

        await Task.Run(() => readAhead.Advance(16)).WaitAsync(TimeSpan.FromSeconds(30));
        Assert.True(await entered.WaitAsync(TimeSpan.FromSeconds(30)));

        Task disposing = Task.Run(readAhead.Dispose);
        await Task.WhenAny(disposing, Task.Delay(TimeSpan.FromMilliseconds(200)));
        Assert.False(disposing.IsCompleted, "Dispose returned while a piece was being advised.");
        release.Set();
        await disposing.WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Single(ranges);
        readAhead.Advance(1024 * 1024);
        Assert.Single(ranges);
    }

    [Fact]
    public async Task ReadsInFlight_WhereTheKernelReadsAhead_OneThreadPerCoreAtLeastTwo()
    {
        WriteSource(TestData.Random, Enumerable.Repeat(SmallBlock, 40).ToArray());
        await PackWriter.CreateAsync(PackPath, Source, new PackOptions { BlockSize = SmallBlock });

        await using PackReader reader = await PackReader.OpenAsync(PackPath);

        int expected = PackReadAhead.IsSupported ? Math.Max(2, Environment.ProcessorCount) : Math.Max(16, Environment.ProcessorCount);
        Assert.Equal(Math.Min(40, expected), reader.ReadsInFlight);
    }

    private static void AssertContiguousFrom(long start, List<(long Offset, long Length)> ranges)
    {
        long next = start;
        foreach ((long offset, long length) in ranges)
        {
            Assert.Equal(next, offset);
            next += length;
        }
    }
}
