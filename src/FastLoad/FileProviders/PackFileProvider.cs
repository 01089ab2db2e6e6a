using FastLoad.FileProviders;
using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.FileProviders.Physical;
using Microsoft.Extensions.Primitives;

namespace FastLoad;

/// <summary>
/// Serves the entries of a pack as an <see cref="IFileProvider"/>, so that static files, configuration and templates
/// read from a pack as they would from a folder: the pack is mounted like a file system, as game engines mount theirs.
/// </summary>
/// <remarks>
/// <para>
/// Folders are the pack's entry names split at <c>/</c>. A subpath is read the way <c>PhysicalFileProvider</c> reads
/// it on the same host: leading separators are ignored, <c>.</c> and <c>..</c> are resolved, and a path that leaves the
/// root, is rooted or holds a character no file name may hold is not found. Names are matched ordinally on Linux (case
/// counts, as on its file systems) and ordinally ignoring case on Windows and macOS.
/// </para>
/// <para>
/// As <c>PhysicalFileProvider</c>, the provider hides what its <see cref="ExclusionFilters"/> exclude, by default
/// <see cref="ExclusionFilters.Sensitive"/>: an entry whose own name starts with <c>.</c> (<c>.env</c>) is not found and
/// not listed, and a dot-prefixed folder is not listed although the entries under it are found by path. A pack records
/// no file attributes, so on Windows a file hidden by attribute alone is served (leave it out of the pack instead).
/// </para>
/// <para>
/// A pack holds no empty folders. A file's <see cref="IFileInfo.LastModified"/> is the pack's, and its
/// <see cref="IFileInfo.PhysicalPath"/> is <see langword="null"/>.
/// </para>
/// <para>
/// Thread-safe. The pack does not change, so <see cref="Watch"/> returns a token that never fires. Once the pack is
/// closed, its streams throw <see cref="ObjectDisposedException"/> at their next read: a stream reads its entry block by
/// block from the pack (a stream of <c>PhysicalFileProvider</c>, with a handle of its own, outlives its provider).
/// </para>
/// </remarks>
/// <example>
/// <code>
/// await using PackFileProvider site = await PackFileProvider.OpenAsync("wwwroot.fpk");
/// app.UseStaticFiles(new StaticFileOptions { FileProvider = site });
/// </code>
/// </example>
public sealed class PackFileProvider : IFileProvider, IDisposable, IAsyncDisposable
{
    private readonly FileTree _tree;
    private readonly bool _ownsReader;

    /// <summary>Serves the entries of an open pack.</summary>
    /// <param name="reader">The pack; it must stay open while the provider is used.</param>
    /// <param name="ownsReader">Whether disposing the provider disposes <paramref name="reader"/>.</param>
    /// <param name="filters">
    /// The entries to hide, as <c>PhysicalFileProvider</c> hides files; the default is
    /// <see cref="ExclusionFilters.Sensitive"/>, <c>PhysicalFileProvider</c>'s own.
    /// </param>
    /// <exception cref="ArgumentNullException"><paramref name="reader"/> is <see langword="null"/>.</exception>
    public PackFileProvider(PackReader reader, bool ownsReader = false, ExclusionFilters filters = ExclusionFilters.Sensitive)
    {
        ArgumentNullException.ThrowIfNull(reader);
        Reader = reader;
        _ownsReader = ownsReader;
        Filters = filters;
        DateTimeOffset modified = PackModified(reader.Path);
        _tree = new FileTree(
            reader.Entries.Where(entry => !IsExcluded(entry.Name, filters)).Select(entry => (entry.Name, (IFileInfo)new PackFileInfo(reader, entry, modified))),
            [],
            name => new TreeDirectory(name, modified, Listed: !IsExcluded(name, filters)));
    }

    /// <summary>Gets the pack the provider serves.</summary>
    public PackReader Reader { get; }

    /// <summary>Gets the entries the provider hides, as <c>PhysicalFileProvider</c> hides files.</summary>
    public ExclusionFilters Filters { get; }

    /// <summary>Opens a pack (its header, footer and index are checked) and serves its entries; the provider owns the pack.</summary>
    /// <param name="path">The pack file.</param>
    /// <param name="options">The pack reader's options; <see langword="null"/> for the defaults.</param>
    /// <param name="filters">
    /// The entries to hide, as <c>PhysicalFileProvider</c> hides files; the default is
    /// <see cref="ExclusionFilters.Sensitive"/>, <c>PhysicalFileProvider</c>'s own.
    /// </param>
    /// <param name="cancellationToken">Stops the opening.</param>
    /// <returns>The provider; dispose it to close the pack.</returns>
    /// <exception cref="ArgumentException">
    /// <paramref name="path"/> is <see langword="null"/> or empty, or <paramref name="options"/> has a value out of
    /// range.
    /// </exception>
    /// <exception cref="FileNotFoundException">The pack does not exist.</exception>
    /// <exception cref="InvalidDataException">The pack is truncated, of another format or version, or has a corrupt index.</exception>
    /// <exception cref="IOException">The pack could not be read.</exception>
    /// <exception cref="UnauthorizedAccessException">The pack could not be opened for reading.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public static async Task<PackFileProvider> OpenAsync(
        string path, PackReaderOptions? options = null, ExclusionFilters filters = ExclusionFilters.Sensitive, CancellationToken cancellationToken = default)
    {
        // Entries are read by name, one block at a time: nothing to read ahead for a whole-pack load.
        PackReader reader = await PackReader.OpenAsync(path, options, readFirstBlockAhead: false, cancellationToken).ConfigureAwait(false);
        return new PackFileProvider(reader, ownsReader: true, filters);
    }

    /// <summary>Finds an entry of the pack.</summary>
    /// <param name="subpath">The entry's path, with <c>/</c> between folders; a leading <c>/</c> is ignored.</param>
    /// <returns>
    /// The entry, whose <see cref="IFileInfo.CreateReadStream"/> reads and decodes it through the pack's block cache; or a
    /// <see cref="NotFoundFileInfo"/> for a folder, a missing or hidden entry, or a path that leaves the root.
    /// </returns>
    public IFileInfo GetFileInfo(string subpath) => _tree.GetFileInfo(subpath);

    /// <summary>Lists the entries and folders directly inside a folder of the pack.</summary>
    /// <param name="subpath">The folder, with <c>/</c> between folders; empty or <c>/</c> for the root.</param>
    /// <returns>The folder's contents, or <see cref="NotFoundDirectoryContents.Singleton"/> when there is no such folder.</returns>
    public IDirectoryContents GetDirectoryContents(string subpath) => _tree.GetDirectoryContents(subpath);

    /// <summary>Returns a token that never fires: a pack does not change.</summary>
    /// <param name="filter">Ignored.</param>
    /// <returns><see cref="NullChangeToken.Singleton"/>.</returns>
    public IChangeToken Watch(string filter) => NullChangeToken.Singleton;

    /// <summary>Closes the pack if the provider owns it; later calls do nothing.</summary>
    public void Dispose()
    {
        if (_ownsReader)
        {
            Reader.Dispose();
        }
    }

    /// <summary>Closes the pack if the provider owns it; later calls do nothing.</summary>
    /// <returns>A task that completes when the pack is closed.</returns>
    public ValueTask DisposeAsync() => _ownsReader ? Reader.DisposeAsync() : ValueTask.CompletedTask;

    // A pack knows its entries by name only: the last segment, and what .NET would report for it, decide.
    private static bool IsExcluded(string name, ExclusionFilters filters)
    {
        ReadOnlySpan<char> last = name.AsSpan(name.LastIndexOf('/') + 1);
        return PhysicalFileProviderRules.IsExcluded(last, PhysicalFileProviderRules.AttributesOfName(last), filters);
    }

    private static DateTimeOffset PackModified(string path)
    {
        try
        {
            return new DateTimeOffset(File.GetLastWriteTimeUtc(path), TimeSpan.Zero);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return DateTimeOffset.MinValue;
        }
    }
}
