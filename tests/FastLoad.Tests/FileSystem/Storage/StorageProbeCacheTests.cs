using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;
using Microsoft.Extensions.Time.Testing;

namespace FastLoad.Tests.Storage;

public class StorageProbeCacheTests
{
    private static readonly StorageDevice First = new("8:0", "sda", StorageKind.SolidState, StorageBus.Nvme, false, null, null, "ext4");
    private static readonly StorageDevice Second = new("8:0", "sdb", StorageKind.Rotational, StorageBus.Scsi, true, null, null, "xfs");

    [Fact]
    public void GetOrAdd_WithinTheLifetime_ProbesOnce()
    {
        var time = new FakeTimeProvider();
        var cache = new StorageProbeCache(time, StorageProbeCache.DefaultLifetime);
        int probes = 0;

        StorageDevice a = cache.GetOrAdd("8:0", (_, _) => { probes++; return First; }, 0);
        time.Advance(StorageProbeCache.DefaultLifetime - TimeSpan.FromSeconds(1));
        StorageDevice b = cache.GetOrAdd("8:0", (_, _) => { probes++; return Second; }, 0);

        Assert.Same(First, a);
        Assert.Same(First, b);
        Assert.Equal(1, probes);
    }

    [Fact]
    public void GetOrAdd_AfterTheLifetime_ProbesAgainAndReturnsTheNewDevice()
    {
        // A remount, or a device number given to another device, must not keep the old description.
        var time = new FakeTimeProvider();
        var cache = new StorageProbeCache(time, StorageProbeCache.DefaultLifetime);
        cache.GetOrAdd("8:0", (_, _) => First, 0);

        time.Advance(StorageProbeCache.DefaultLifetime);

        Assert.Same(Second, cache.GetOrAdd("8:0", (_, _) => Second, 0));
        Assert.True(cache.TryGet("8:0", out StorageDevice? cached));
        Assert.Same(Second, cached);
    }
}
