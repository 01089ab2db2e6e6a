using FastLoad;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Registers FastLoad in a service collection.</summary>
public static class FastLoadServiceCollectionExtensions
{
    /// <summary>
    /// Registers a singleton <see cref="FileLoader"/> whose <see cref="FileLoaderOptions"/> are bound from
    /// <paramref name="configuration"/> (for example <c>configuration.GetSection("FastLoad")</c>) and validated at start.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configuration">The configuration section holding the options' properties.</param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> or <paramref name="configuration"/> is <see langword="null"/>.</exception>
    public static IServiceCollection AddFastLoad(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        services.AddOptionsWithValidateOnStart<FileLoaderOptions>().Configure(options => FileLoaderConfiguration.Bind(configuration, options));
        return AddFastLoadCore(services);
    }

    /// <summary>Registers a singleton <see cref="FileLoader"/> whose options <paramref name="configure"/> sets, validated at start.</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configure">Sets the options.</param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> or <paramref name="configure"/> is <see langword="null"/>.</exception>
    public static IServiceCollection AddFastLoad(this IServiceCollection services, Action<FileLoaderOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configure);
        services.AddOptionsWithValidateOnStart<FileLoaderOptions>().Configure(configure);
        return AddFastLoadCore(services);
    }

    private static IServiceCollection AddFastLoadCore(IServiceCollection services)
    {
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<FileLoaderOptions>, FileLoaderOptionsValidator>());
        services.TryAddSingleton(provider => new FileLoader(
            provider.GetRequiredService<IOptions<FileLoaderOptions>>().Value,
            provider.GetService<ILoggerFactory>(),
            provider.GetService<TimeProvider>(),
            provider.GetService<System.Diagnostics.Metrics.IMeterFactory>()));
        return services;
    }
}
