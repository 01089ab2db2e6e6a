using FastLoad.Tests.Infrastructure;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.FileProviders.Physical;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace FastLoad.Tests.Hosting;

public class FileProviderHostingTests : TempDirectoryTestBase
{
    private const string Settings = """{ "Site": { "Title": "Packed", "Assets": 200 } }""";

    private string PackPath => Path.Combine(Root, "config.fpk");

    private async Task PackSettingsAsync()
    {
        WriteFile("config/appsettings.json", System.Text.Encoding.UTF8.GetBytes(Settings));
        WriteFile("config/templates/page.html", 300);
        await PackWriter.CreateAsync(PackPath, Path.Combine(Root, "config"));
    }

    [Fact]
    public async Task AddFastLoadPackAsync_RegistersTheProviderUnderItsName()
    {
        await PackSettingsAsync();
        var services = new ServiceCollection();

        PackFileProvider pack = await services.AddFastLoadPackAsync("config", PackPath);

        await using ServiceProvider provider = services.BuildServiceProvider();
        Assert.Same(pack, provider.GetRequiredKeyedService<IFileProvider>("config"));
        Assert.Null(provider.GetKeyedService<IFileProvider>("other"));
        Assert.True(pack.GetFileInfo("templates/page.html").Exists);
    }

    [Fact]
    public async Task AddFastLoadPackAsync_ServiceProviderDisposed_ClosesThePack()
    {
        await PackSettingsAsync();
        var services = new ServiceCollection();
        PackFileProvider pack = await services.AddFastLoadPackAsync("config", PackPath);
        ServiceProvider provider = services.BuildServiceProvider();
        provider.GetRequiredKeyedService<IFileProvider>("config");

        await provider.DisposeAsync();

        Assert.Throws<ObjectDisposedException>(() => pack.Reader.LoadAllAsync());
    }

    [Fact]
    public async Task AddJsonFile_FromAPack_ReadsTheSettings()
    {
        await PackSettingsAsync();
        var services = new ServiceCollection();
        PackFileProvider pack = await services.AddFastLoadPackAsync("config", PackPath);

        IConfiguration configuration = new ConfigurationBuilder()
            .AddJsonFile(pack, "appsettings.json", optional: false, reloadOnChange: false)
            .Build();

        Assert.Equal("Packed", configuration["Site:Title"]);
        Assert.Equal(200, configuration.GetValue<int>("Site:Assets"));
    }

    [Fact]
    public async Task AddJsonFile_MissingFromThePack_ThrowsUnlessOptional()
    {
        await PackSettingsAsync();
        await using PackFileProvider pack = await PackFileProvider.OpenAsync(PackPath);

        Assert.Throws<FileNotFoundException>(() => new ConfigurationBuilder().AddJsonFile(pack, "missing.json", optional: false, reloadOnChange: false).Build());
        Assert.Empty(new ConfigurationBuilder().AddJsonFile(pack, "missing.json", optional: true, reloadOnChange: false).Build().AsEnumerable());
    }

    [Fact]
    public async Task HostApplicationBuilder_RelativePaths_AreUnderTheContentRoot()
    {
        await PackSettingsAsync();
        HostApplicationBuilder builder = Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings { ContentRootPath = Root });

        PackFileProvider pack = await builder.AddFastLoadPackAsync("config", "config.fpk");
        PreloadedFileProvider folder = await builder.AddFastLoadPreloadedFolderAsync("templates", "config/templates");
        builder.Configuration.AddJsonFile(pack, "appsettings.json", optional: false, reloadOnChange: false);

        using IHost host = builder.Build();
        Assert.Same(pack, host.Services.GetRequiredKeyedService<IFileProvider>("config"));
        Assert.Same(folder, host.Services.GetRequiredKeyedService<IFileProvider>("templates"));
        Assert.Equal(300, folder.GetFileInfo("page.html").Length);
        Assert.Equal("Packed", host.Services.GetRequiredService<IConfiguration>()["Site:Title"]);
    }

    [Fact]
    public async Task AddFastLoadPreloadedFolderAsync_FolderOverTheLimit_ThrowsAndRegistersNothing()
    {
        WriteFile("big/a.bin", 2000);
        var services = new ServiceCollection();

        await Assert.ThrowsAsync<InvalidOperationException>(() => services.AddFastLoadPreloadedFolderAsync("big", Path.Combine(Root, "big"), memoryLimit: 1000));

        Assert.Empty(services);
    }

    [LinuxFact]
    public async Task AddFastLoadPreloadedFolderAsync_FolderWithAFifo_ServesTheRestAndLogsTheFifoWhenTheHostStarts()
    {
        WriteFile("templates/page.html", 300);
        string fifo = Native.CreateFifo(Path.Combine(Root, "templates", "pipe"));

        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);
        HostApplicationBuilder builder = Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings { ContentRootPath = Root });
        builder.Services.AddSingleton<ILoggerFactory>(loggerFactory);
        builder.Services.AddSingleton(typeof(ILogger<>), typeof(Logger<>));

        PreloadedFileProvider templates = await builder.AddFastLoadPreloadedFolderAsync("templates", "templates");
        using IHost host = builder.Build();
        Assert.DoesNotContain(logs.GetSnapshot(), entry => entry.Id.Id == FastLoadEventId.PreloadedEntrySkipped);
        await host.StartAsync();
        await host.StopAsync();

        Assert.Equal(300, templates.GetFileInfo("page.html").Length);
        Assert.Equal(fifo, Assert.Single(templates.Skipped).Path);
        var logged = Assert.Single(logs.GetSnapshot(), entry => entry.Id.Id == FastLoadEventId.PreloadedEntrySkipped);
        Assert.Equal(LogLevel.Warning, logged.Level);
        Assert.Contains(fifo, logged.Message, StringComparison.Ordinal);
        Assert.Contains("templates", logged.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AddFastLoadPreloadedFolderAsync_NothingSkipped_RegistersNoStartupReport()
    {
        WriteFile("templates/page.html", 300);
        var services = new ServiceCollection();

        await services.AddFastLoadPreloadedFolderAsync("templates", Path.Combine(Root, "templates"));

        Assert.DoesNotContain(services, service => service.ServiceType == typeof(IHostedService));
    }

    [Theory]
    [InlineData(ExclusionFilters.Sensitive, false)]
    [InlineData(ExclusionFilters.None, true)]
    public async Task AddFastLoadPackAndFolder_Filters_DecideWhetherDotFilesAreServed(ExclusionFilters filters, bool served)
    {
        WriteFile("site/.env", 10);
        WriteFile("site/index.html", 10);
        await PackWriter.CreateAsync(PackPath, Path.Combine(Root, "site"));
        var services = new ServiceCollection();

        PackFileProvider pack = await services.AddFastLoadPackAsync("site", PackPath, filters);
        PreloadedFileProvider folder = await services.AddFastLoadPreloadedFolderAsync("folder", Path.Combine(Root, "site"), filters: filters);

        await using ServiceProvider provider = services.BuildServiceProvider();
        Assert.Equal(served, pack.GetFileInfo(".env").Exists);
        Assert.Equal(served, folder.GetFileInfo(".env").Exists);
        Assert.True(folder.GetFileInfo("index.html").Exists);
    }

    [Fact]
    public async Task AddFastLoadPackAsync_BadArguments_Throw()
    {
        var services = new ServiceCollection();

        await Assert.ThrowsAsync<ArgumentNullException>(() => services.AddFastLoadPackAsync(null!, PackPath));
        await Assert.ThrowsAsync<ArgumentException>(() => services.AddFastLoadPackAsync("x", ""));
        await Assert.ThrowsAsync<FileNotFoundException>(() => services.AddFastLoadPackAsync("x", Path.Combine(Root, "missing.fpk")));
        Assert.Empty(services);
    }
}
