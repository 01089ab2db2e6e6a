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

    /// <summary>Every public settable option, found by reflection, so that an option added later cannot be left unbound.</summary>
    public static TheoryData<string> ConfigurableOptions()
    {
        var data = new TheoryData<string>();
        foreach (System.Reflection.PropertyInfo property in typeof(FileLoaderOptions).GetProperties())
        {
            // BufferPool is an object, set in code only.
            if (property.SetMethod is { IsPublic: true } && property.Name != nameof(FileLoaderOptions.BufferPool))
            {
                data.Add(property.Name);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(ConfigurableOptions))]
    public void AddFastLoad_FromConfiguration_BindsThisOption(string name)
    {
        System.Reflection.PropertyInfo property = typeof(FileLoaderOptions).GetProperty(name)!;
        object? defaultValue = property.GetValue(new FileLoaderOptions());
        Type type = Nullable.GetUnderlyingType(property.PropertyType) ?? property.PropertyType;
        string value = type switch
        {
            _ when type == typeof(bool) => (!(bool)defaultValue!).ToString(),
            _ when type == typeof(int) => "3",
            _ when type == typeof(long) => "1048576",
            _ when type.IsEnum => Enum.GetNames(type).First(candidate => !Equals(Enum.Parse(type, candidate), defaultValue)),
            _ => throw new InvalidOperationException($"The test does not know how to write a {type} option ({name}): teach it."),
        };
        using ServiceProvider provider = new ServiceCollection().AddFastLoad(Configuration((name, value)).GetSection("FastLoad")).BuildServiceProvider();

        object? bound = property.GetValue(provider.GetRequiredService<IOptions<FileLoaderOptions>>().Value);

        Assert.NotEqual(defaultValue, bound);
        Assert.Equal(value, Convert.ToString(bound, System.Globalization.CultureInfo.InvariantCulture));
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
