using FastLoad;
using FastLoad.Hosting;
using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.FileProviders.Physical;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Mounts packs and preloaded folders in a service collection as named (keyed) <see cref="IFileProvider"/>s.</summary>
public static class FastLoadFileProviderServiceCollectionExtensions
{
    /// <summary>
    /// Opens a pack now and registers it as a keyed singleton <see cref="IFileProvider"/> named <paramref name="name"/>
    /// (inject it with <c>[FromKeyedServices(name)]</c> or <c>GetRequiredKeyedService&lt;IFileProvider&gt;(name)</c>).
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="name">The service key.</param>
    /// <param name="packPath">The pack file.</param>
    /// <param name="filters">
    /// The entries to hide, as <c>PhysicalFileProvider</c> hides files; the default is
    /// <see cref="ExclusionFilters.Sensitive"/>, <c>PhysicalFileProvider</c>'s own.
    /// </param>
    /// <param name="cancellationToken">Stops the opening.</param>
    /// <returns>
    /// The provider, usable before the service provider is built (for example by <c>AddJsonFile(provider, ...)</c>);
    /// the service provider disposes it, and with it the pack, once it has been resolved.
    /// </returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> or <paramref name="name"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="packPath"/> is <see langword="null"/> or empty.</exception>
    /// <exception cref="FileNotFoundException">The pack does not exist.</exception>
    /// <exception cref="InvalidDataException">The pack is truncated, of another format or version, or has a corrupt index.</exception>
    /// <exception cref="IOException">The pack could not be read.</exception>
    /// <exception cref="UnauthorizedAccessException">The pack could not be opened for reading.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public static async Task<PackFileProvider> AddFastLoadPackAsync(
        this IServiceCollection services,
        string name,
        string packPath,
        ExclusionFilters filters = ExclusionFilters.Sensitive,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(name);
        ArgumentException.ThrowIfNullOrEmpty(packPath);
        PackFileProvider provider = await PackFileProvider.OpenAsync(packPath, filters: filters, cancellationToken: cancellationToken).ConfigureAwait(false);
        Register(services, name, provider);
        return provider;
    }

    /// <summary>
    /// Loads every file of a folder into memory now (one <see cref="FileLoader"/> load) and registers the files as a keyed
    /// singleton <see cref="IFileProvider"/> named <paramref name="name"/>. An entry that cannot be loaded is skipped
    /// (<see cref="PreloadedFileProvider.Skipped"/>) and logged as <see cref="FastLoadEventId.PreloadedEntrySkipped"/>
    /// when the host starts.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="name">The service key.</param>
    /// <param name="folder">The folder.</param>
    /// <param name="memoryLimit">
    /// The most bytes of file contents to hold; the default is <see cref="PreloadedFileProvider.DefaultMemoryLimit"/>
    /// (64 MiB).
    /// </param>
    /// <param name="filters">
    /// The files and folders to hide, as <c>PhysicalFileProvider</c> hides them; the default is
    /// <see cref="ExclusionFilters.Sensitive"/>, <c>PhysicalFileProvider</c>'s own.
    /// </param>
    /// <param name="cancellationToken">Stops the load.</param>
    /// <returns>The provider, usable before the service provider is built.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> or <paramref name="name"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="folder"/> is <see langword="null"/> or empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="memoryLimit"/> is negative.</exception>
    /// <exception cref="DirectoryNotFoundException"><paramref name="folder"/> does not exist.</exception>
    /// <exception cref="InvalidOperationException">
    /// The folder holds more than <paramref name="memoryLimit"/> bytes; the message names the folder, its size and the
    /// limit.
    /// </exception>
    /// <exception cref="IOException"><paramref name="folder"/> could not be read.</exception>
    /// <exception cref="UnauthorizedAccessException"><paramref name="folder"/> could not be opened.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public static async Task<PreloadedFileProvider> AddFastLoadPreloadedFolderAsync(
        this IServiceCollection services,
        string name,
        string folder,
        long memoryLimit = PreloadedFileProvider.DefaultMemoryLimit,
        ExclusionFilters filters = ExclusionFilters.Sensitive,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(name);
        ArgumentException.ThrowIfNullOrEmpty(folder);
        PreloadedFileProvider provider = await PreloadedFileProvider.LoadAsync(
            folder, memoryLimit, filters: filters, cancellationToken: cancellationToken).ConfigureAwait(false);
        Register(services, name, provider);
        if (provider.Skipped.Count > 0)
        {
            // Not AddHostedService: it keeps one registration per type, and each folder reports its own.
            services.AddSingleton<IHostedService>(serviceProvider =>
                new SkippedEntriesReport(name, provider, serviceProvider.GetRequiredService<ILogger<PreloadedFileProvider>>()));
        }

        return provider;
    }

    // A factory, not an instance: the service provider disposes what its factories made.
    private static void Register(IServiceCollection services, string name, IFileProvider provider) =>
        services.AddKeyedSingleton(name, (_, _) => provider);
}
