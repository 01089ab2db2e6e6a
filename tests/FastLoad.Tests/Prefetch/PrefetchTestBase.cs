using FastLoad.FileSystem;
using FastLoad.Prefetch;
using FastLoad.Shared;
using FastLoad.Tests.Infrastructure;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Tests.Prefetch;

/// <summary>
/// A made-up application for start-up manifests: its folder, a per-user cache folder, and data files it reads. The
/// recordings keep only the data files (the test process maps and loads many others, some for other tests).
/// </summary>
public abstract class PrefetchTestBase : TempDirectoryTestBase
{
    protected const string Build = "testapp 1";
    protected const int MiB = 1024 * 1024;

    protected PrefetchTestBase()
    {
        Directory.CreateDirectory(AppDirectory);
        Directory.CreateDirectory(DataDirectory);
    }

    protected string AppDirectory => Path.Combine(Root, "app");

    protected string CacheDirectory => Path.Combine(Root, "cache");

    protected string DataDirectory => Path.Combine(Root, "data");

    /// <summary>Where a start looks first, and writes when it can.</summary>
    protected string ManifestBesideApp => Path.Combine(AppDirectory, "testapp.startup-manifest");

    /// <summary>
    /// The hooks of a start in this made-up application. What the process read from the disk before the start began
    /// is <paramref name="diskReadBytes"/>, not the test process's: by default unknown, which replays every start.
    /// Where the made-up application lies is no spinning disk unless a test says so (<paramref name="appOnSpinningDisk"/>),
    /// whatever disk holds the temporary folder.
    /// </summary>
    private protected PrefetchTestHooks Hooks(
        Action? afterReplay = null, Action<int>? beforeRange = null, long? diskReadBytes = null, Action? beforeThreadStart = null,
        bool appOnSpinningDisk = false) => new()
    {
        AppOnSpinningDisk = appOnSpinningDisk,
        BeforeThreadStart = beforeThreadStart,
        DiskReadBytes = () => diskReadBytes,
        AppDirectory = AppDirectory,
        AppName = "testapp",
        CacheDirectory = CacheDirectory,
        RecordFilter = path => path.StartsWith(DataDirectory + Path.DirectorySeparatorChar, StringComparison.Ordinal),
        AfterReplay = afterReplay,
        BeforeRange = beforeRange,
    };

    private protected StartupPrefetch Begin(StartupPrefetchOptions? options = null, PrefetchTestHooks? hooks = null, ILogger? logger = null)
    {
        options ??= new StartupPrefetchOptions();
        options.BuildKey ??= Build;

        // Recorded as soon as the start ends, unless a test means the delay and sets another.
        if (options.RecordDelay == new StartupPrefetchOptions().RecordDelay)
        {
            options.RecordDelay = TimeSpan.Zero;
        }

        return StartupPrefetch.Begin(options, logger, hooks ?? Hooks());
    }

    /// <summary>Begins a start, lets its replay finish, ends it and returns what it did.</summary>
    private protected async Task<StartupPrefetchSummary> StartAsync(
        StartupPrefetchOptions? options = null, ILogger? logger = null, Action? beforeEnd = null, long? diskReadBytes = null)
    {
        using var replayed = new ManualResetEventSlim();
        using StartupPrefetch prefetch = Begin(options, Hooks(afterReplay: replayed.Set, diskReadBytes: diskReadBytes), logger);
        Assert.True(replayed.Wait(TimeSpan.FromSeconds(30)), "The replay did not finish.");
        beforeEnd?.Invoke();
        prefetch.End(logger);
        return await prefetch.Completion.WaitAsync(TimeSpan.FromSeconds(30));
    }

    /// <summary>A start during which the application loads <paramref name="path"/>.</summary>
    private protected Task<StartupPrefetchSummary> StartReadingAsync(string path, ILogger? logger = null) =>
        StartAsync(logger: logger, beforeEnd: () => Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([path])).GetAwaiter().GetResult());

    private protected string DataFile(string name, int length, int seed = 1) => WriteFile(Path.Combine("data", name), length, seed);

    /// <summary>A manifest of this build (or <paramref name="buildKey"/>) listing the ranges of files as they are now.</summary>
    private protected static StartupManifest ManifestOf(string buildKey, params (string Path, (long Offset, long Length)[] Ranges)[] files)
    {
        StartupManifestFile[] entries = [.. files
            .OrderBy(file => file.Path, StringComparer.Ordinal)
            .Select(file =>
            {
                FileVersion version = FileVersion.Get(file.Path);
                return new StartupManifestFile(
                    file.Path, version.Length, version.LastWriteUnixNanoseconds, [.. file.Ranges.Select(range => new StartupManifestRange(range.Offset, range.Length))]);
            })];
        return new StartupManifest(buildKey, entries);
    }

    /// <summary><paramref name="manifest"/> with each file given the place of first use that <paramref name="placeOf"/> says (0 for none).</summary>
    private protected static StartupManifest WithPlaces(StartupManifest manifest, Func<StartupManifestFile, int, int> placeOf) =>
        new(manifest.BuildKey, [.. manifest.FileArray.Select((file, i) =>
            new StartupManifestFile(file.Path, file.Length, file.LastWriteUnixNanoseconds, file.RangeArray, placeOf(file, i)))]);

    private protected static byte[] Write(string path, StartupManifest manifest)
    {
        byte[] bytes = ManifestFormat.Write(manifest);
        File.WriteAllBytes(path, bytes);
        return bytes;
    }

    private protected static void Evict(params string[] paths)
    {
        foreach (string path in paths)
        {
            PageCache.Evict(path);
        }
    }

    /// <summary>The bytes of <c>[offset, offset + length)</c> of a file that are in the page cache now.</summary>
    private protected static long Cached(string path, long offset, long length)
    {
        if (OperatingSystem.IsWindows())
        {
            throw new PlatformNotSupportedException("mincore is a Unix call.");
        }

        using SafeFileHandle handle = ReadableFile.Open(path, out long fileLength);
        var runs = new ResidencyRuns();
        Assert.True(PageResidency.TryGetRuns(handle, [new StartupManifestRange(offset, length)], fileLength, runs));
        long cached = 0;
        for (int i = 0; i < runs.Count; i++)
        {
            cached += runs.IsResident(i) ? runs.End(i) - runs.Start(i) : 0;
        }

        return cached;
    }

    private protected static long Cached(string path) => Cached(path, 0, new FileInfo(path).Length);

    /// <summary>Nearly all of <paramref name="expected"/> bytes: an idle machine may still reclaim a few clean pages.</summary>
    private protected static void AssertMostlyCached(long expected, long cached) => Assert.InRange(cached, expected * 15 / 16, expected);
}
