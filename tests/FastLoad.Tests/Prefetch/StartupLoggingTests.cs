using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Prefetch;

/// <summary>At the default Information level, a log says that a manifest was replayed and that one was written.</summary>
public sealed class StartupLoggingTests : PrefetchTestBase
{
    [LinuxFact]
    public async Task Start_ReplayedThenWritten_EachSaidAtInformation()
    {
        string a = DataFile("a.bin", MiB);
        Write(ManifestBesideApp, ManifestOf(Build, (a, [(0, 4096)])));
        Evict(a);
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);

        StartupPrefetchSummary summary = await StartReadingAsync(a, loggerFactory.CreateLogger("test"));

        Assert.True(summary.ManifestWritten);
        var replayed = Assert.Single(logs.GetSnapshot(), entry => entry.Id.Id == FastLoadEventId.StartupManifestReplayed);
        var written = Assert.Single(logs.GetSnapshot(), entry => entry.Id.Id == FastLoadEventId.StartupManifestRecorded);
        Assert.Equal(LogLevel.Information, replayed.Level);
        Assert.Equal(LogLevel.Information, written.Level);
        Assert.Contains(ManifestBesideApp, replayed.Message);
        Assert.Contains(ManifestBesideApp, written.Message);
    }

    [LinuxFact]
    public async Task Start_ManifestUnchanged_IsNotSaidAtInformation()
    {
        string a = DataFile("a.bin", MiB);
        _ = await StartReadingAsync(a);
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);

        StartupPrefetchSummary summary = await StartReadingAsync(a, loggerFactory.CreateLogger("test"));

        Assert.False(summary.ManifestWritten);
        var recorded = Assert.Single(logs.GetSnapshot(), entry => entry.Id.Id == FastLoadEventId.StartupManifestRecorded);
        Assert.Equal(LogLevel.Debug, recorded.Level);
    }
}
