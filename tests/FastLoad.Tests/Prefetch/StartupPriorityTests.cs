using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using FastLoad.FileSystem;
using FastLoad.Prefetch;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Prefetch;

/// <summary>
/// The replay and the recording run at low priority, and leave none of it behind: a thread inherits the nice value and
/// I/O priority of the thread that creates it, for life, so a lowered thread that completes a task, calls a logger or
/// starts a pool worker would run the application's requests at the lowest priority.
/// </summary>
[SupportedOSPlatform("linux")]
public sealed partial class StartupPriorityTests : PrefetchTestBase
{
    private const int LowestBestEffort = (2 << 13) | 7;

    [LinuxFact]
    public async Task ReplayAsync_Awaited_TheContinuationAndThreadsItCreatesKeepTheOriginalPriorities()
    {
        string a = DataFile("a.bin", MiB);
        string manifest = Path.Combine(Root, "m.startup-manifest");
        Write(manifest, ManifestOf(Build, (a, [(0, MiB)])));
        Evict(a);
        Priorities original = Priorities.OfThisThread();

        StartupPrefetchSummary summary = await StartupPrefetch.ReplayAsync(manifest).ConfigureAwait(false);

        Assert.Equal(MiB, summary.RequestedBytes);
        Assert.Equal(original, Priorities.OfThisThread());
        Assert.Equal(original, Priorities.OfANewThread());
    }

    [LinuxFact]
    public async Task Begin_ColdStart_ReplaysAtLowIoPriorityButLogsCompletesAndCreatesThreadsAtTheOriginal()
    {
        string a = DataFile("a.bin", MiB);
        Write(ManifestBesideApp, ManifestOf(Build, (a, [(0, MiB)])));
        Evict(a);
        Priorities original = Priorities.OfThisThread();
        var logged = new List<(Priorities Caller, Priorities Created)>();
        var logger = new PriorityLogger(logged);
        int? replayIoPriority = null;
        using var replayed = new ManualResetEventSlim();
        PrefetchTestHooks hooks = Hooks(afterReplay: replayed.Set, beforeRange: _ => replayIoPriority ??= Priorities.OfThisThread().Io);
        using StartupPrefetch prefetch = Begin(hooks: hooks, logger: logger);
        Assert.True(replayed.Wait(TimeSpan.FromSeconds(30)));
        _ = Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([a])).GetAwaiter().GetResult();
        prefetch.End();

        StartupPrefetchSummary summary = await prefetch.Completion.WaitAsync(TimeSpan.FromSeconds(30)).ConfigureAwait(false);

        Assert.True(summary.ManifestWritten);
        Assert.Equal(LowestBestEffort, replayIoPriority);
        Assert.Equal(original, Priorities.OfThisThread());
        Assert.Equal(original, Priorities.OfANewThread());
        lock (logged)
        {
            Assert.NotEmpty(logged);
            Assert.All(logged, entry => Assert.Equal((original, original), entry));
        }
    }

    /// <summary>The nice value and the I/O priority of a thread, as the kernel reports them.</summary>
    private readonly partial record struct Priorities(int Nice, int Io)
    {
        public static Priorities OfThisThread()
        {
            Marshal.SetLastPInvokeError(0);
            int nice = GetPriority(0, 0);
            Assert.True(nice != -1 || Marshal.GetLastPInvokeError() == 0);
            int io = Interop.IoPriorityGet(Interop.IoPriorityWhoProcess, 0);
            Assert.True(io >= 0);
            return new Priorities(nice, io);
        }

        /// <summary>What a thread created by this one starts with.</summary>
        public static Priorities OfANewThread()
        {
            Priorities created = default;
            var thread = new Thread(() => created = OfThisThread());
            thread.Start();
            thread.Join();
            return created;
        }

        [LibraryImport("libc", EntryPoint = "getpriority", SetLastError = true)]
        private static partial int GetPriority(int which, int who);
    }

    /// <summary>Notes, at each message, the priorities of the thread that logs and of a thread it creates.</summary>
    private sealed class PriorityLogger(List<(Priorities Caller, Priorities Created)> logged) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            var entry = (Priorities.OfThisThread(), Priorities.OfANewThread());
            lock (logged)
            {
                logged.Add(entry);
            }
        }
    }
}
