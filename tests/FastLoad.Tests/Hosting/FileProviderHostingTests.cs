using FastLoad.Tests.Infrastructure;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.Hosting;

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
