using FastLoad.Prefetch;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Prefetch;

/// <summary>A start that cannot do its work (no thread, an unexpected error) ends quietly, and says why in its summary.</summary>
public sealed class StartupFailureTests : PrefetchTestBase
{
    [LinuxFact]
    public async Task Begin_SystemRefusesTheThread_BeginEndAndDisposeReturnAndTheSummaryHoldsTheProblem()
    {
        string a = DataFile("a.bin", 4096);
        Write(ManifestBesideApp, ManifestOf(Build, (a, [(0, 4096)])));
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);
        PrefetchTestHooks hooks = Hooks(beforeThreadStart: () => throw new OutOfMemoryException("Thread failed to start."));

        StartupPrefetch prefetch = Begin(hooks: hooks, logger: loggerFactory.CreateLogger("test"));
        prefetch.End();
        prefetch.Dispose();
        StartupPrefetchSummary summary = await prefetch.Completion.WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Equal("OutOfMemoryException: Thread failed to start.", summary.Problem);
        Assert.Null(summary.RecordedPath);
        Assert.Single(logs.GetSnapshot(), entry => entry.Id.Id == FastLoadEventId.StartupPrefetchFailed);
    }

    [LinuxFact]
    public async Task Run_UnexpectedError_TheSummaryHoldsTheProblem()
    {
        string a = DataFile("a.bin", 4096);
        Write(ManifestBesideApp, ManifestOf(Build, (a, [(0, 4096)])));
        PrefetchTestHooks hooks = Hooks(afterReplay: () => throw new InvalidOperationException("broken on purpose"));

        using StartupPrefetch prefetch = Begin(hooks: hooks);
        prefetch.End();
        StartupPrefetchSummary summary = await prefetch.Completion.WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Equal("InvalidOperationException: broken on purpose", summary.Problem);
        Assert.Equal(StartupManifestStatus.Replayed, summary.ManifestStatus);
    }

    [LinuxFact]
    public async Task Completion_StartThatWorked_HasNoProblem()
    {
        string a = DataFile("a.bin", 4096);
        Write(ManifestBesideApp, ManifestOf(Build, (a, [(0, 4096)])));

        StartupPrefetchSummary summary = await StartAsync();

        Assert.Null(summary.Problem);
    }
}
