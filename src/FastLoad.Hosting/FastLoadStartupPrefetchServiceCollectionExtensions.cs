using FastLoad;
using FastLoad.Hosting;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Ends a <see cref="StartupPrefetch"/> when a host has started.</summary>
public static class FastLoadStartupPrefetchServiceCollectionExtensions
{
    /// <summary>
    /// Ends <paramref name="prefetch"/> at <see cref="IHostApplicationLifetime.ApplicationStarted"/> (the host has
    /// started, and a web server listens), logging through the host's logging as category <c>FastLoad.StartupPrefetch</c>.
    /// Dispose <paramref name="prefetch"/> when the application ends (a <c>using</c> declaration at the top of
    /// <c>Main</c>), so that the manifest is written before the process exits.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="prefetch">The start begun at the top of <c>Main</c> with <see cref="StartupPrefetch.Begin(StartupPrefetchOptions, Logging.ILogger)"/>.</param>
    /// <returns><paramref name="services"/>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> or <paramref name="prefetch"/> is <see langword="null"/>.</exception>
    public static IServiceCollection AddStartupPrefetch(this IServiceCollection services, StartupPrefetch prefetch)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(prefetch);
        // Built directly, not by ActivatorUtilities: reflecting over the service's constructor would be one more
        // first-time cost of the start it is there to shorten.
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IHostedService, StartupPrefetchService>(
            provider => new StartupPrefetchService(prefetch, provider.GetRequiredService<IHostApplicationLifetime>(), provider.GetService<ILoggerFactory>())));
        return services;
    }
}
