using System.Collections.Concurrent;
using FastLoad.Engine;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Internals;

// Listeners are process-wide, and other test classes load files at the same time: each test looks for its own paths only.
public sealed class LoadObserversTests : TempDirectoryTestBase
{
    [Fact]
    public async Task FileRead_ByEveryKindOfRead_ReachesTheListenerUntilDisposed()
    {
        string[] loose = [WriteFile("a.bin", 10), WriteFile("b.bin", 70_000), WriteFile("c.bin", 0)];
        string streamed = WriteFile("stream.bin", 100_000);
        string packed = Path.Combine(Root, "p.fpk");
        await PackWriter.CreateAsync(packed, FileSet.FromPaths([loose[0]]), new PackOptions());
        var seen = new ConcurrentBag<string>();

        using (LoadObservers.Subscribe(seen.Add))
        {
            await Loads.CollectAsync(new FileLoader(), FileSet.FromPaths(loose));
            await foreach (FileChunk chunk in new FileLoader().ReadChunksAsync(streamed, 16 * 1024))
            {
                chunk.Dispose();
            }

            await using (await PackReader.OpenAsync(packed))
            {
            }
        }

        string after = WriteFile("after.bin", 10);
        await Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([after]));

        Assert.All(loose.Append(streamed).Append(packed), path => Assert.Contains(path, seen));
        Assert.DoesNotContain(after, seen);
    }

    [Fact]
    public async Task FileRead_ListenerThrows_LoadGoesOnAndOtherListenersHearIt()
    {
        string path = WriteFile("a.bin", 100);
        var seen = new ConcurrentBag<string>();

        using (LoadObservers.Subscribe(_ => throw new InvalidOperationException("listener failure")))
        using (LoadObservers.Subscribe(seen.Add))
        {
            var files = await Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([path]));

            Assert.Equal(Contents(100, 0), Assert.Single(files).Data);
        }

        Assert.Contains(path, seen);
    }
}
