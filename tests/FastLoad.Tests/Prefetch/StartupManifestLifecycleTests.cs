using System.Diagnostics;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Prefetch;

/// <summary>A manifest that is stale, corrupt or cannot be written beside the application: never a failed start.</summary>
public sealed class StartupManifestLifecycleTests : PrefetchTestBase
{
    public enum Damage
    {
        Empty,
        RandomBytes,
        TruncatedHeader,
        TruncatedBody,
        FlippedBit,
        AnotherVersion,
        NotAManifest,
    }

    [LinuxFact]
    public async Task Begin_ManifestOfAnotherBuild_IsNotReplayedAndIsRewrittenForThisBuild()
    {
        string a = DataFile("a.bin", MiB);
        Write(ManifestBesideApp, ManifestOf("testapp 0", (a, [(0, MiB)])));
        Evict(a);
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);

        StartupPrefetchSummary summary = await StartAsync(
            logger: loggerFactory.CreateLogger("test"),
            beforeEnd: () => Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([a])).GetAwaiter().GetResult());

        Assert.Equal(StartupManifestStatus.Stale, summary.ManifestStatus);
        Assert.Equal(0, summary.RequestedBytes);
        Assert.Contains("testapp 0", summary.ManifestProblem);
        var logged = Assert.Single(logs.GetSnapshot(), entry => entry.Id.Id == FastLoadEventId.StartupManifestStale);
        Assert.Contains(ManifestBesideApp, logged.Message);
        Assert.Equal(ManifestBesideApp, summary.RecordedPath);
        Assert.Equal(Build, StartupManifest.Read(ManifestBesideApp).BuildKey);
    }

    [LinuxFact]
    public async Task Begin_NoManifestAnywhere_LooksWithoutThrowing()
    {
        string a = DataFile("a.bin", MiB);
        int thrown = 0;
        void OnFirstChance(object? sender, System.Runtime.ExceptionServices.FirstChanceExceptionEventArgs e)
        {
            // Other tests run meanwhile: only what concerns this application's folders counts.
            if (e.Exception is FileNotFoundException or DirectoryNotFoundException && e.Exception.Message.Contains(Root, StringComparison.Ordinal))
            {
                Interlocked.Increment(ref thrown);
            }
        }

        AppDomain.CurrentDomain.FirstChanceException += OnFirstChance;
        StartupPrefetchSummary summary;
        try
        {
            summary = await StartAsync(beforeEnd: () => Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([a])).GetAwaiter().GetResult());
        }
        finally
        {
            AppDomain.CurrentDomain.FirstChanceException -= OnFirstChance;
        }

        // A missing manifest is the common case, not an error: an exception per place looked at would cost every start.
        Assert.Equal(StartupManifestStatus.NotFound, summary.ManifestStatus);
        Assert.Equal(0, thrown);
        Assert.Equal(ManifestBesideApp, summary.RecordedPath);
    }

    [LinuxTheory]
    [InlineData(Damage.Empty)]
    [InlineData(Damage.RandomBytes)]
    [InlineData(Damage.TruncatedHeader)]
    [InlineData(Damage.TruncatedBody)]
    [InlineData(Damage.FlippedBit)]
    [InlineData(Damage.AnotherVersion)]
    [InlineData(Damage.NotAManifest)]
    public async Task Begin_DamagedManifest_StartsLogsTheProblemAndRewritesIt(Damage damage)
    {
        string a = DataFile("a.bin", MiB);
        byte[] valid = Write(ManifestBesideApp, ManifestOf(Build, (a, [(0, MiB)])));
        File.WriteAllBytes(ManifestBesideApp, Apply(damage, valid));
        Evict(a);
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);

        // No logger at Begin: the problem is logged once End brings one.
        StartupPrefetchSummary summary = await StartAsync(
            logger: null,
            beforeEnd: () => Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([a])).GetAwaiter().GetResult());
        Assert.Empty(logs.GetSnapshot());

        Assert.Equal(StartupManifestStatus.Corrupt, summary.ManifestStatus);
        Assert.Equal(0, summary.RequestedBytes);
        Assert.Equal(ManifestBesideApp, summary.RecordedPath);
        Assert.True(summary.ManifestWritten);
        Assert.Equal(Build, StartupManifest.Read(ManifestBesideApp).BuildKey);
    }

    [LinuxFact]
    public async Task End_GivenALogger_LogsWhatWaitedSinceBegin()
    {
        File.WriteAllBytes(ManifestBesideApp, [1, 2, 3]);
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);

        await StartAsync(logger: loggerFactory.CreateLogger("test"));

        var corrupt = Assert.Single(logs.GetSnapshot(), entry => entry.Id.Id == FastLoadEventId.StartupManifestCorrupt);
        Assert.Equal(LogLevel.Warning, corrupt.Level);
        Assert.Contains(ManifestBesideApp, corrupt.Message);
        Assert.Contains("3 bytes", corrupt.Message);
    }

    [Fact]
    public async Task End_ReadOnlyAppFolder_WritesToTheUserCacheAndTheNextStartReplaysFromThere()
    {
        string a = DataFile("a.bin", MiB);
        using var readOnly = ReadOnlyFolder.Make(AppDirectory);
        Assert.SkipWhen(readOnly.SkipReason is not null, readOnly.SkipReason ?? string.Empty);
        Action load = () => Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([a])).GetAwaiter().GetResult();

        StartupPrefetchSummary first = await StartAsync(beforeEnd: load);
        Evict(a);
        StartupPrefetchSummary second = await StartAsync(beforeEnd: load);

        Assert.NotNull(first.RecordedPath);
        Assert.StartsWith(CacheDirectory + Path.DirectorySeparatorChar, first.RecordedPath);
        Assert.False(File.Exists(ManifestBesideApp));
        Assert.Equal(StartupManifestStatus.Replayed, second.ManifestStatus);
        Assert.Equal(first.RecordedPath, second.ManifestPath);
        Assert.Equal(MiB, second.RequestedBytes);
        Assert.False(second.ManifestWritten);
    }

    [Fact]
    public async Task Begin_StaleManifestBesideReadOnlyApp_ReplaysTheCachedOneOfThisBuild()
    {
        string a = DataFile("a.bin", MiB);
        Write(ManifestBesideApp, ManifestOf("testapp 0", (a, [(0, MiB)])));
        using var readOnly = ReadOnlyFolder.Make(AppDirectory);
        Assert.SkipWhen(readOnly.SkipReason is not null, readOnly.SkipReason ?? string.Empty);
        await StartAsync(beforeEnd: () => Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([a])).GetAwaiter().GetResult());
        Evict(a);

        StartupPrefetchSummary summary = await StartAsync();

        Assert.Equal(StartupManifestStatus.Replayed, summary.ManifestStatus);
        Assert.StartsWith(CacheDirectory + Path.DirectorySeparatorChar, summary.ManifestPath);
        Assert.Equal(MiB, summary.RequestedBytes);
    }

    [Fact]
    public async Task End_NowhereWritable_LogsAndStillCompletes()
    {
        File.WriteAllBytes(Path.Combine(Root, "cache"), []); // A file where the cache folder would be.
        using var readOnly = ReadOnlyFolder.Make(AppDirectory);
        Assert.SkipWhen(readOnly.SkipReason is not null, readOnly.SkipReason ?? string.Empty);
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);

        StartupPrefetchSummary summary = await StartAsync(logger: loggerFactory.CreateLogger("test"));

        Assert.Null(summary.RecordedPath);
        Assert.Contains(logs.GetSnapshot(), entry => entry.Id.Id == FastLoadEventId.StartupManifestNotWritten);
    }

    [Fact]
    public void Begin_InvalidOptions_ThrowsNamingTheProperty()
    {
        var ex = Assert.Throws<ArgumentException>(() => StartupPrefetch.Begin(new StartupPrefetchOptions { ReplayBudget = -1 }));

        Assert.Contains(nameof(StartupPrefetchOptions.ReplayBudget), ex.Message);
    }

    private static byte[] Apply(Damage damage, byte[] valid)
    {
        byte[] bytes = [.. valid];
        switch (damage)
        {
            case Damage.Empty:
                return [];
            case Damage.RandomBytes:
                new Random(27).NextBytes(bytes);
                return bytes;
            case Damage.TruncatedHeader:
                return bytes[..20];
            case Damage.TruncatedBody:
                return bytes[..^10];
            case Damage.FlippedBit:
                bytes[bytes.Length / 2] ^= 0x10;
                return bytes;
            case Damage.AnotherVersion:
                bytes[4] = FastLoad.Prefetch.ManifestFormat.Version + 1;
                return bytes;
            default:
                return "{\"not\": \"a manifest\"}"u8.ToArray();
        }
    }

    /// <summary>
    /// A folder nobody may write to, for as long as it is not disposed: <c>chattr +i</c> as root (root writes
    /// whatever the mode), <c>chmod 555</c> otherwise.
    /// </summary>
    private sealed class ReadOnlyFolder : IDisposable
    {
        private readonly string _path;
        private readonly bool _immutable;

        private ReadOnlyFolder(string path, bool immutable, string? skipReason)
        {
            _path = path;
            _immutable = immutable;
            SkipReason = skipReason;
        }

        public string? SkipReason { get; }

        public static ReadOnlyFolder Make(string path)
        {
            if (!OperatingSystem.IsLinux())
            {
                return new ReadOnlyFolder(path, false, "Needs Linux (the replay is checked with mincore, the files evicted with posix_fadvise).");
            }

            if (!Loads.IsRoot)
            {
                File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserExecute | UnixFileMode.GroupRead | UnixFileMode.GroupExecute);
                return new ReadOnlyFolder(path, false, null);
            }

            bool made = Run("chattr", "+i", path);
            var folder = new ReadOnlyFolder(path, made, made ? null : "Needs chattr and a file system with the immutable attribute to make a folder read-only for root.");
            if (made && CanWrite(path))
            {
                folder.Dispose();
                return new ReadOnlyFolder(path, false, "chattr +i did not make the folder read-only here.");
            }

            return folder;
        }

        public void Dispose()
        {
            if (_immutable)
            {
                Run("chattr", "-i", _path);
            }
            else if (OperatingSystem.IsLinux() && !Loads.IsRoot)
            {
                File.SetUnixFileMode(_path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
            }
        }

        private static bool CanWrite(string path)
        {
            try
            {
                File.WriteAllBytes(Path.Combine(path, "probe"), []);
                File.Delete(Path.Combine(path, "probe"));
                return true;
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                return false;
            }
        }

        private static bool Run(string program, params string[] arguments)
        {
            try
            {
                using Process process = Process.Start(new ProcessStartInfo(program, arguments) { RedirectStandardError = true })!;
                process.WaitForExit();
                return process.ExitCode == 0;
            }
            catch (System.ComponentModel.Win32Exception)
            {
                return false;
            }
        }
    }
}
