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
        using StartupPrefetch prefetch = Begin();
        HostApplicationBuilder builder = Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings());
        builder.Logging.AddProvider(new FakeLoggerProvider(logs));
        builder.Services.AddStartupPrefetch(prefetch);
        builder.Services.AddStartupPrefetch(prefetch); // Twice: still one service.
        using IHost host = builder.Build();
        await Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([config]));

        await host.StartAsync();
        StartupPrefetchSummary summary = await prefetch.Completion.WaitAsync(TimeSpan.FromSeconds(30));
        await host.StopAsync();

        Assert.Single(host.Services.GetServices<IHostedService>());
        Assert.Equal(StartupManifestStatus.Corrupt, summary.ManifestStatus);
        Assert.Equal(ManifestBesideApp, summary.RecordedPath);
        Assert.Equal(config, Assert.Single(StartupManifest.Read(ManifestBesideApp).Files).Path);
        var corrupt = Assert.Single(logs.GetSnapshot(), entry => entry.Id.Id == FastLoadEventId.StartupManifestCorrupt);
        Assert.Equal("FastLoad.StartupPrefetch", corrupt.Category);
    }

    [LinuxFact]
    public async Task StopAsync_HostNeverStarted_DoesNotWaitForTheStart()
    {
        using StartupPrefetch prefetch = Begin();
        var services = new ServiceCollection();
        services.AddSingleton<IHostApplicationLifetime, NeverStarted>();
        services.AddStartupPrefetch(prefetch);
        await using ServiceProvider provider = services.BuildServiceProvider();
        IHostedService service = Assert.Single(provider.GetServices<IHostedService>());
        await service.StartAsync(CancellationToken.None);

        await service.StopAsync(CancellationToken.None).WaitAsync(TimeSpan.FromSeconds(30));

        Assert.False(prefetch.Completion.IsCompleted);
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
