using FastLoad.Engine;
using FastLoad.FileSystem;
using FastLoad.Shared;
using FastLoad.Tests.Infrastructure;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Tests.Loading;

/// <summary>
/// Reader threads on Linux, where no ring reads: one a core while the set's files are cached (more only take turns on
/// the cores), and as many as the plan allows from the first read that waits for the device.
/// </summary>
public class ReaderThreadsWhileCachedTests : TempDirectoryTestBase
{
    private const int FileCount = 1000;
    private const int FileSize = 8 * 1024;

    [LinuxFact]
    public async Task LoadAsync_EveryFileCached_StartsNoMoreReaderThreadsThanCores()
    {
        Dictionary<string, byte[]> expected = WriteSet();
        WriteBack(expected.Keys);

        (int threads, bool waited, Dictionary<string, byte[]> loaded) = await LoadCountingThreadsAsync();

        Assert.Equal(expected, loaded);

        // A cached page the kernel holds locked for a moment (reclaim, compaction) reads as a wait, and lets the threads
        // start as a cold load would: the hold is judged only where no read waited.
        if (!waited)
        {
            Assert.InRange(threads, 0, Environment.ProcessorCount);
        }
    }

    [LinuxFact]
    public async Task LoadAsync_FilesNotCached_StartsMoreReaderThreadsThanCores()
    {
        Dictionary<string, byte[]> expected = WriteSet();
        foreach (string path in expected.Keys)
        {
            PageCache.Evict(path);
        }

        Assert.SkipWhen(IsCached(expected.Keys.First()), "The temporary folder's file system keeps pages it was told to drop (tmpfs, say).");

        (int threads, bool waited, Dictionary<string, byte[]> loaded) = await LoadCountingThreadsAsync();

        Assert.Equal(expected, loaded);
        Assert.True(waited);
        Assert.True(threads > Environment.ProcessorCount, $"{threads} reader threads for {FileCount} files not in the page cache.");
    }

    [LinuxFact]
    public void TryReadCached_SecondHalfNotCached_GivesTheCachedStartAndTheRestReadsOnFromThere()
    {
        const int Size = 512 * FileSize; // 4 MiB: whole large folios in each half
        byte[] contents = Contents(Size, seed: 9);
        string path = WriteFile("half.bin", Size, seed: 9);
        WriteBack([path]);
        using SafeFileHandle handle = File.OpenHandle(path);
        _ = Interop.PosixFadvise((int)handle.DangerousGetHandle(), Size / 2, Size / 2, advice: 4); // POSIX_FADV_DONTNEED
        var destination = new byte[Size];

        bool whole = WholeFileReader.TryReadCached(handle, destination, out int read);
        Assert.SkipWhen(whole, "The temporary folder's file system keeps pages it was told to drop (tmpfs, say).");

        // As FileReader does: keep what the page cache gave, read the rest from where it stopped.
        Assert.InRange(read, 0, Size / 2);
        int rest = ChunkedReader.ReadFully(handle, path, destination.AsSpan(read), read);
        Assert.Equal(Size, read + rest);
        Assert.Equal(contents, destination);
    }

    [LinuxFact]
    public void TryReadCached_FileInThePageCache_ReadsItsBytes()
    {
        byte[] contents = Contents(FileSize, seed: 7);
        string path = WriteFile("cached.bin", FileSize, seed: 7);
        using SafeFileHandle handle = File.OpenHandle(path);
        var destination = new byte[FileSize];

        Assert.True(WholeFileReader.TryReadCached(handle, destination, out _));
        Assert.Equal(contents, destination);
    }

    [LinuxFact]
    public void TryReadCached_FileShorterThanAsked_IsFalse()
    {
        string path = WriteFile("short.bin", FileSize, seed: 7);
        using SafeFileHandle handle = File.OpenHandle(path);

        Assert.False(WholeFileReader.TryReadCached(handle, new byte[FileSize + 1], out _));
    }

    [Fact]
    public void DeviceWaitSignal_SetTwice_RunsItsActionOnce()
    {
        int runs = 0;
        var signal = new DeviceWaitSignal(() => runs++);

        signal.Set();
        signal.Set();

        Assert.True(signal.Seen);
        Assert.Equal(1, runs);
    }

    private Dictionary<string, byte[]> WriteSet()
    {
        var expected = new Dictionary<string, byte[]>();
        for (int i = 0; i < FileCount; i++)
        {
            expected[WriteFile($"f{i:D4}.bin", FileSize, seed: i)] = Contents(FileSize, seed: i);
        }

        return expected;
    }

    private async Task<(int Threads, bool Waited, Dictionary<string, byte[]> Loaded)> LoadCountingThreadsAsync()
    {
        int threads = 0;
        bool waited = false;
        var hooks = new LoadTestHooks { OnReaderThreadStart = () => Interlocked.Increment(ref threads), OnDeviceWaitSeen = () => Volatile.Write(ref waited, true) };
        var loader = new FileLoader(new FileLoaderOptions { Scheduling = IoScheduling.DedicatedThreads, Storage = StorageKind.SolidState }, hooks);
        var loaded = new Dictionary<string, byte[]>();
        await loader.LoadAsync(FileSet.FromDirectory(Root), (file, _) =>
        {
            loaded.Add(file.Path, file.Data.ToArray());
            return ValueTask.CompletedTask;
        });
        return (Volatile.Read(ref threads), Volatile.Read(ref waited), loaded);
    }

    private static bool IsCached(string path)
    {
        using SafeFileHandle handle = File.OpenHandle(path);
        return WholeFileReader.TryReadCached(handle, new byte[FileSize], out _);
    }
}
