using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using FastLoad.Prefetch;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Prefetch;

/// <summary>A manifest naming a device or a FIFO (crafted, or a path reused since): never opened, never read, never a hang.</summary>
[SupportedOSPlatform("linux")]
public sealed partial class StartupReplaySpecialFileTests : PrefetchTestBase
{
    private const int InotifyNonBlocking = 0x800;
    private const uint InotifyOpen = 0x20;

    [LinuxFact]
    public async Task ReplayAsync_ManifestNamingDevicesAndAFifo_OpensNoneAndReplaysTheRest()
    {
        string kept = DataFile("kept.bin", 8192);
        string fifo = Native.CreateFifo(Path.Combine(DataDirectory, "fifo"));
        StartupManifest recorded = ManifestOf(Build, (kept, [(0, 8192)]));
        StartupManifestFile[] special = [.. new[] { fifo, "/dev/zero", "/dev/null" }.Select(path => new StartupManifestFile(path, 4096, 0, [new StartupManifestRange(0, 4096)]))];
        string manifest = Path.Combine(Root, "m.startup-manifest");
        Write(manifest, new StartupManifest(Build, [.. recorded.FileArray.Concat(special).OrderBy(file => file.Path, StringComparer.Ordinal)]));
        Evict(kept);
        int watch = InotifyInit(InotifyNonBlocking);
        Assert.True(watch >= 0);
        try
        {
            Assert.True(InotifyAddWatch(watch, fifo, InotifyOpen) >= 0);

            StartupPrefetchSummary summary = await StartupPrefetch.ReplayAsync(manifest).WaitAsync(TimeSpan.FromSeconds(30));

            Assert.Equal(1, summary.FileCount);
            Assert.Equal(3, summary.ChangedFileCount);
            Assert.Equal(8192, summary.RequestedBytes);
            Assert.False(Opened(watch), "The replay opened the FIFO.");
        }
        finally
        {
            _ = Close(watch);
        }
    }

    private static unsafe bool Opened(int watch)
    {
        byte* events = stackalloc byte[4096];
        return Read(watch, events, 4096) > 0;
    }

    [LibraryImport("libc", EntryPoint = "inotify_init1", SetLastError = true)]
    private static partial int InotifyInit(int flags);

    [LibraryImport("libc", EntryPoint = "inotify_add_watch", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
    private static partial int InotifyAddWatch(int fd, string path, uint mask);

    [LibraryImport("libc", EntryPoint = "read", SetLastError = true)]
    private static unsafe partial nint Read(int fd, byte* buffer, nint count);

    [LibraryImport("libc", EntryPoint = "close", SetLastError = true)]
    private static partial int Close(int fd);
}
