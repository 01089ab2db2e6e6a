using FastLoad;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.FileProviders.Physical;

namespace Microsoft.Extensions.Hosting;

/// <summary>
/// Mounts packs and preloaded folders in a host (<c>Host.CreateApplicationBuilder</c>, <c>WebApplication.CreateBuilder</c>)
/// as named (keyed) <see cref="IFileProvider"/>s; relative paths are under the host's content root.
/// </summary>
/// <example>
/// <code>
/// WebApplicationBuilder builder = WebApplication.CreateBuilder(args);
/// PackFileProvider site = await builder.AddFastLoadPackAsync("site", "site.fpk");
/// builder.Configuration.AddJsonFile(site, "appsettings.json", optional: false, reloadOnChange: false);
/// </code>
/// </example>
public static class FastLoadFileProviderHostApplicationBuilderExtensions
{
    /// <summary>Opens a pack now and registers it as a keyed singleton <see cref="IFileProvider"/> named <paramref name="name"/>.</summary>
    /// <param name="builder">The host builder.</param>
    /// <param name="name">The service key.</param>
    /// <param name="packPath">The pack file; a relative path is under <see cref="IHostEnvironment.ContentRootPath"/>.</param>
    /// <param name="filters">
    /// The entries to hide, as <c>PhysicalFileProvider</c> hides files; the default is
    /// <see cref="ExclusionFilters.Sensitive"/>, <c>PhysicalFileProvider</c>'s own.
    /// </param>
    /// <param name="cancellationToken">Stops the opening.</param>
    /// <returns>
    /// The provider, usable before the host is built (for example by <c>AddJsonFile(provider, ...)</c>); the host's
    /// services dispose it once it has been resolved.
    /// </returns>
    /// <exception cref="ArgumentNullException"><paramref name="builder"/> or <paramref name="name"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="packPath"/> is <see langword="null"/> or empty.</exception>
    /// <exception cref="FileNotFoundException">The pack does not exist.</exception>
    /// <exception cref="InvalidDataException">The pack is truncated, of another format or version, or has a corrupt index.</exception>
    /// <exception cref="IOException">The pack could not be read.</exception>
    /// <exception cref="UnauthorizedAccessException">The pack could not be opened for reading.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public static Task<PackFileProvider> AddFastLoadPackAsync(
        this IHostApplicationBuilder builder,
        string name,
        string packPath,
        ExclusionFilters filters = ExclusionFilters.Sensitive,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentException.ThrowIfNullOrEmpty(packPath);
        return builder.Services.AddFastLoadPackAsync(name, Path.Combine(builder.Environment.ContentRootPath, packPath), filters, cancellationToken);
    }

    /// <summary>
    /// Loads every file of a folder into memory now and registers the files as a keyed singleton
    /// <see cref="IFileProvider"/> named <paramref name="name"/>. An entry that cannot be loaded is skipped
    /// (<see cref="PreloadedFileProvider.Skipped"/>) and logged as <see cref="FastLoadEventId.PreloadedEntrySkipped"/>
    /// when the host starts.
    /// </summary>
    /// <param name="builder">The host builder.</param>
    /// <param name="name">The service key.</param>
    /// <param name="folder">The folder; a relative path is under <see cref="IHostEnvironment.ContentRootPath"/>.</param>
    /// <param name="memoryLimit">
    /// The most bytes of file contents to hold; the default is <see cref="PreloadedFileProvider.DefaultMemoryLimit"/>
    /// (64 MiB).
    /// </param>
    /// <param name="filters">
    /// The files and folders to hide, as <c>PhysicalFileProvider</c> hides them; the default is
    /// <see cref="ExclusionFilters.Sensitive"/>, <c>PhysicalFileProvider</c>'s own.
    /// </param>
    /// <param name="cancellationToken">Stops the load.</param>
    /// <returns>The provider, usable before the host is built.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="builder"/> or <paramref name="name"/> is <see langword="null"/>.</exception>
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
    public static Task<PreloadedFileProvider> AddFastLoadPreloadedFolderAsync(
        this IHostApplicationBuilder builder,
        string name,
        string folder,
        long memoryLimit = PreloadedFileProvider.DefaultMemoryLimit,
        ExclusionFilters filters = ExclusionFilters.Sensitive,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentException.ThrowIfNullOrEmpty(folder);
        return builder.Services.AddFastLoadPreloadedFolderAsync(
            name, Path.Combine(builder.Environment.ContentRootPath, folder), memoryLimit, filters, cancellationToken);
    }
}
