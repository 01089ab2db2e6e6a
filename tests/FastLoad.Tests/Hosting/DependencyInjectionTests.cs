using FastLoad.Tests.Infrastructure;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace FastLoad.Tests.Hosting;

public class DependencyInjectionTests : TempDirectoryTestBase
{
    private static IConfiguration Configuration(params (string Key, string Value)[] values) =>
        new ConfigurationBuilder().AddInMemoryCollection(values.Select(v => KeyValuePair.Create<string, string?>($"FastLoad:{v.Key}", v.Value))).Build();

    [Fact]
    public void AddFastLoad_FromConfiguration_BindsEveryValueThatIsSet()
    {
        IConfiguration configuration = Configuration(
            ("MaxDegreeOfParallelism", "12"), ("MemoryBudget", "1048576"), ("Ordering", "Input"), ("ErrorHandling", "Collect"),
            ("Scheduling", "ThreadPool"), ("ConsumerParallelism", "3"), ("Adaptive", "false"), ("Storage", "Rotational"),
            ("PhysicalOrder", "Off"), ("Buffering", "Unbuffered"), ("UseMemoryMapping", "true"));
        using ServiceProvider provider = new ServiceCollection().AddFastLoad(configuration.GetSection("FastLoad")).BuildServiceProvider();

        FileLoaderOptions options = provider.GetRequiredService<IOptions<FileLoaderOptions>>().Value;

        Assert.Equal(12, options.MaxDegreeOfParallelism);
        Assert.Equal(1048576, options.MemoryBudget);
        Assert.Equal(LoadOrdering.Input, options.Ordering);
        Assert.Equal(LoadErrorHandling.Collect, options.ErrorHandling);
        Assert.Equal(IoScheduling.ThreadPool, options.Scheduling);
        Assert.Equal(3, options.ConsumerParallelism);
        Assert.False(options.Adaptive);
        Assert.Equal(StorageKind.Rotational, options.Storage);
        Assert.Equal(PhysicalOrder.Off, options.PhysicalOrder);
        Assert.Equal(FileBuffering.Unbuffered, options.Buffering);
        Assert.True(options.UseMemoryMapping);
        Assert.NotNull(provider.GetRequiredService<FileLoader>());
    }

    [Fact]
    public void AddFastLoad_EmptyConfiguration_KeepsTheDefaults()
    {
        using ServiceProvider provider = new ServiceCollection().AddFastLoad(Configuration().GetSection("FastLoad")).BuildServiceProvider();

        FileLoaderOptions options = provider.GetRequiredService<IOptions<FileLoaderOptions>>().Value;

        Assert.Null(options.MaxDegreeOfParallelism);
        Assert.Equal(new FileLoaderOptions().MemoryBudget, options.MemoryBudget);
        Assert.True(options.Adaptive);
    }

    [Theory]
    [InlineData("MaxDegreeOfParallelism", "0", "MaxDegreeOfParallelism")]
    [InlineData("MemoryBudget", "10", "MemoryBudget")]
    public void AddFastLoad_OutOfRangeValue_FailsValidationNamingIt(string key, string value, string expected)
    {
        using ServiceProvider provider = new ServiceCollection().AddFastLoad(Configuration((key, value)).GetSection("FastLoad")).BuildServiceProvider();

        var ex = Assert.Throws<OptionsValidationException>(() => provider.GetRequiredService<FileLoader>());

        Assert.Contains(expected, ex.Message);
    }

    [Fact]
    public void AddFastLoad_CrossFieldRule_IsValidatedToo()
    {
        using ServiceProvider provider = new ServiceCollection()
            .AddFastLoad(options => (options.PhysicalOrder, options.Ordering) = (PhysicalOrder.On, LoadOrdering.Input))
            .BuildServiceProvider();

        var ex = Assert.Throws<OptionsValidationException>(() => provider.GetRequiredService<IOptions<FileLoaderOptions>>().Value);

        Assert.Contains("PhysicalOrder", ex.Message);
    }

    [Fact]
    public async Task AddFastLoad_Twice_RegistersOneLoaderThatLoads()
    {
        string path = WriteFile("a.bin", 100);
        var services = new ServiceCollection().AddFastLoad(options => options.MaxDegreeOfParallelism = 2).AddFastLoad(_ => { });

        Assert.Single(services, d => d.ServiceType == typeof(FileLoader));
        using ServiceProvider provider = services.BuildServiceProvider();
        LoadSummary summary = await provider.GetRequiredService<FileLoader>().LoadAsync(FileSet.FromPaths([path]), (_, _) => ValueTask.CompletedTask);
        Assert.Equal(1, summary.FileCount);
        Assert.Same(provider.GetRequiredService<FileLoader>(), provider.GetRequiredService<FileLoader>());
    }

    [Fact]
    public void AddFastLoad_NullArguments_Throw()
    {
        Assert.Throws<ArgumentNullException>(() => FastLoadServiceCollectionExtensions.AddFastLoad(null!, _ => { }));
        Assert.Throws<ArgumentNullException>(() => new ServiceCollection().AddFastLoad((Action<FileLoaderOptions>)null!));
        Assert.Throws<ArgumentNullException>(() => new ServiceCollection().AddFastLoad((IConfiguration)null!));
    }
}
