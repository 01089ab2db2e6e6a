using FastLoad.Tests.Infrastructure;
using FastLoad.Tests.Prefetch;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace FastLoad.Tests.Hosting;

public sealed class StartupPrefetchHostingTests : PrefetchTestBase
{
    [LinuxFact]
    public async Task AddStartupPrefetch_HostStarted_EndsTheStartAndLogsThroughTheHost()
    {
        string config = DataFile("config.json", 2000);
        File.WriteAllBytes(ManifestBesideApp, [0]); // Corrupt: logged through the host's logging once the start ends.
        var logs = new FakeLogCollector();
        StartupPrefetch prefetch = Begin(new StartupPrefetchOptions { RecordDelay = TimeSpan.FromMinutes(10) });
        HostApplicationBuilder builder = Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings());
        builder.Logging.AddProvider(new FakeLoggerProvider(logs));
        builder.Services.AddStartupPrefetch(prefetch);
        builder.Services.AddStartupPrefetch(prefetch); // Twice: still one service.
        StartupPrefetchSummary summary;
        using (IHost host = builder.Build())
        {
            await Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([config]));
            await host.StartAsync();
            await host.StopAsync().WaitAsync(TimeSpan.FromSeconds(30)); // Within the delay: the host does not wait for it.
            Assert.Single(host.Services.GetServices<IHostedService>());
            Assert.False(prefetch.Completion.IsCompleted);

            prefetch.Dispose(); // As Main's using declaration does once the host has run: records at once.
            summary = await prefetch.Completion.WaitAsync(TimeSpan.FromSeconds(30));
        }

        Assert.Equal(StartupManifestStatus.Corrupt, summary.ManifestStatus);
        Assert.Equal(ManifestBesideApp, summary.RecordedPath);
        Assert.Equal(config, Assert.Single(StartupManifest.Read(ManifestBesideApp).Files).Path);
        var corrupt = Assert.Single(logs.GetSnapshot(), entry => entry.Id.Id == FastLoadEventId.StartupManifestCorrupt);
        Assert.Equal("FastLoad.StartupPrefetch", corrupt.Category);
    }

    [LinuxFact]
    public async Task AddStartupPrefetch_HostNeverStarted_LeavesTheStartUnended()
    {
        using StartupPrefetch prefetch = Begin();
        var services = new ServiceCollection();
        services.AddSingleton<IHostApplicationLifetime, NeverStarted>();
        services.AddStartupPrefetch(prefetch);
        await using ServiceProvider provider = services.BuildServiceProvider();
        IHostedService service = Assert.Single(provider.GetServices<IHostedService>());

        await service.StartAsync(CancellationToken.None);
        await service.StopAsync(CancellationToken.None);
        prefetch.Dispose();
        StartupPrefetchSummary summary = await prefetch.Completion.WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Null(summary.RecordedPath); // Disposed before it ended: a failed start is not recorded.
    }

    [Fact]
    public void AddStartupPrefetch_NullArguments_Throw()
    {
        Assert.Throws<ArgumentNullException>(() => ((IServiceCollection)null!).AddStartupPrefetch(null!));
        Assert.Throws<ArgumentNullException>(() => new ServiceCollection().AddStartupPrefetch(null!));
    }

    private sealed class NeverStarted : IHostApplicationLifetime
    {
        public CancellationToken ApplicationStarted => CancellationToken.None;

        public CancellationToken ApplicationStopping => CancellationToken.None;

        public CancellationToken ApplicationStopped => CancellationToken.None;

        public void StopApplication()
        {
        }
    }
}
