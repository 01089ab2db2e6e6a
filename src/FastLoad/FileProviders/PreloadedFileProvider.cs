using System.Globalization;
using FastLoad.Engine;
using FastLoad.FileProviders;
using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.FileProviders.Physical;
using Microsoft.Extensions.Primitives;

namespace FastLoad;

/// <summary>
/// Every file of a folder, loaded into memory by one <see cref="FileLoader"/> load and served from there as an
/// <see cref="IFileProvider"/>: for configuration and templates that are read more than once.
/// </summary>
/// <remarks>
/// <para>
/// The contents held are bounded by a limit (64 MiB unless you choose another) and reported by
/// <see cref="MemoryUse"/>. A folder larger than the limit is not served: the load stops as soon as it passes the limit
/// and <see cref="LoadAsync"/> throws, naming the folder, its size and the limit.
/// </para>
/// <para>
/// One bad entry costs no other file its place: what cannot be loaded (a dangling symbolic link, a FIFO, a socket or
/// device, a file or folder that cannot be read) is left out, listed in <see cref="Skipped"/> and logged by the
/// loader, and every other file is served. Links to folders are not followed; they are listed in
/// <see cref="Skipped"/> too.
/// </para>
/// <para>
/// Paths and names follow <c>PhysicalFileProvider</c>'s rules on the same host (see <see cref="PackFileProvider"/>), and
/// so do its <see cref="ExclusionFilters"/>, by default <see cref="ExclusionFilters.Sensitive"/>: a dot-prefixed, hidden
/// or system file is neither loaded nor served, and such a folder is not listed although the files under it are found
/// by path. Folders are listed in ordinal order of their names, empty ones included. Files are a snapshot:
/// <see cref="Watch"/> never fires, <see cref="IFileInfo.LastModified"/> is the file's last write time when it was
/// listed (a symbolic link's target's), and <see cref="IFileInfo.PhysicalPath"/> is <see langword="null"/>, so that
/// every reader reads the snapshot rather than the disk. Thread-safe.
/// </para>
/// </remarks>
/// <example>
/// <code>
/// PreloadedFileProvider config = await PreloadedFileProvider.LoadAsync("config");
/// builder.Configuration.AddJsonFile(config, "appsettings.json", optional: false, reloadOnChange: false);
/// </code>
/// </example>
public sealed class PreloadedFileProvider : IFileProvider
{
    /// <summary>The default <c>memoryLimit</c> of <see cref="LoadAsync"/>: 64 MiB of file contents.</summary>
    public const long DefaultMemoryLimit = 64L * 1024 * 1024;

    private readonly FileTree _tree;

    private PreloadedFileProvider(
        string root, FileTree tree, long memoryUse, long memoryLimit, ExclusionFilters filters, IReadOnlyList<LoadFailure> skipped)
    {
        Root = root;
        _tree = tree;
        MemoryUse = memoryUse;
        MemoryLimit = memoryLimit;
        Filters = filters;
        Skipped = skipped;
    }

    /// <summary>Gets the full path of the folder that was loaded.</summary>
    public string Root { get; }

    /// <summary>Gets the number of files served.</summary>
    public int FileCount => _tree.FileCount;

    /// <summary>Gets the bytes of file contents held in memory: the sum of the files' lengths, never more than <see cref="MemoryLimit"/>.</summary>
    public long MemoryUse { get; }

    /// <summary>Gets the limit the folder was loaded under, in bytes.</summary>
    public long MemoryLimit { get; }

    /// <summary>Gets the files and folders the provider hides, as <c>PhysicalFileProvider</c> hides them.</summary>
    public ExclusionFilters Filters { get; }

    /// <summary>
    /// Gets the entries of the folder that are not served although the filters do not hide them, each with the reason,
    /// in ordinal order of their paths: files that could not be loaded (dangling symbolic links, FIFOs, sockets,
    /// devices, files that could not be read), folders that could not be read, and links to folders. Empty when every
    /// entry was loaded.
    /// </summary>
    public IReadOnlyList<LoadFailure> Skipped { get; }

    /// <summary>
    /// Loads every file under a folder, subfolders included, and serves them from memory; an entry that cannot be
    /// loaded is skipped (see <see cref="Skipped"/>).
    /// </summary>
    /// <param name="root">The folder.</param>
    /// <param name="memoryLimit">The most bytes of file contents to hold; the default is <see cref="DefaultMemoryLimit"/> (64 MiB).</param>
    /// <param name="loader">
    /// The loader to read with (its options: parallelism, budget, cold-start path; its logger, which logs each skipped
    /// entry as <see cref="FastLoadEventId.FileFailed"/>); <see langword="null"/> for a new one with the default options
    /// and no logger. Whatever its <see cref="FileLoaderOptions.ErrorHandling"/>, a file that cannot be loaded is skipped.
    /// </param>
    /// <param name="filters">
    /// The files and folders to hide, as <c>PhysicalFileProvider</c> hides them; the default is
    /// <see cref="ExclusionFilters.Sensitive"/>, <c>PhysicalFileProvider</c>'s own. Hidden files are not loaded.
    /// </param>
    /// <param name="cancellationToken">Stops the load.</param>
    /// <returns>The provider, holding every file of the folder that could be loaded.</returns>
    /// <exception cref="ArgumentException"><paramref name="root"/> is <see langword="null"/> or empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="memoryLimit"/> is negative.</exception>
    /// <exception cref="DirectoryNotFoundException"><paramref name="root"/> does not exist.</exception>
    /// <exception cref="InvalidOperationException">
    /// The folder holds more than <paramref name="memoryLimit"/> bytes; the message names the folder, its size and the
    /// limit.
    /// </exception>
    /// <exception cref="IOException"><paramref name="root"/> could not be read.</exception>
    /// <exception cref="UnauthorizedAccessException"><paramref name="root"/> could not be opened.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public static async Task<PreloadedFileProvider> LoadAsync(
        string root,
        long memoryLimit = DefaultMemoryLimit,
        FileLoader? loader = null,
        ExclusionFilters filters = ExclusionFilters.Sensitive,
        CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(root);
        ArgumentOutOfRangeException.ThrowIfNegative(memoryLimit);
        string fullRoot = Path.GetFullPath(root);
        FolderListing listing = FolderListing.Read(fullRoot, filters);
        loader = (loader ?? new FileLoader()).CollectingFailures();
        foreach (LoadFailure skipped in listing.Skipped)
        {
            // The load logs the files it could not read; what the listing left out is logged alike.
            loader.Logger?.FileFailed(skipped.Path, skipped.Exception);
        }

        string[] paths = [.. listing.Files.ConvertAll(file => file.Path)];
        byte[]?[] contents = new byte[paths.Length][];
        var failures = new List<LoadFailure>(listing.Skipped);
        long total = 0;
        await foreach (LoadedFile file in loader.LoadAsync(FileSet.FromPaths(paths), cancellationToken).ConfigureAwait(false))
        {
            using (file)
            {
                if (file.Error is { } error)
                {
                    failures.Add(new LoadFailure(file.Path, error));
                    continue;
                }

                total += file.Length;
                if (total > memoryLimit)
                {
                    // Leaving the loop stops the load and returns its buffers; the folder's size is only needed now.
                    throw TooLarge(fullRoot, paths, memoryLimit);
                }

                contents[file.Index] = file.Data.ToArray();
            }
        }

        var files = new List<(string Name, IFileInfo File)>(paths.Length);
        for (int i = 0; i < paths.Length; i++)
        {
            if (contents[i] is { } data)
            {
                ListedFile listed = listing.Files[i];
                DateTimeOffset modified = listed.IsLink ? TargetModified(listed) : listed.LastModified;
                files.Add((listed.Name, new MemoryFileInfo(listed.Name, data, modified)));
            }
        }

        failures.Sort(static (x, y) => string.CompareOrdinal(x.Path, y.Path));
        var tree = new FileTree(files, listing.Directories, name => new TreeDirectory(name, DateTimeOffset.UnixEpoch, Listed: true));
        return new PreloadedFileProvider(fullRoot, tree, total, memoryLimit, filters, failures);
    }

    /// <summary>Finds a file of the folder.</summary>
    /// <param name="subpath">The file's path under the folder, with <c>/</c> between folders; a leading <c>/</c> is ignored.</param>
    /// <returns>The file, read from memory; or a <see cref="NotFoundFileInfo"/> for a folder, a missing or hidden file, or a path that leaves the root.</returns>
    public IFileInfo GetFileInfo(string subpath) => _tree.GetFileInfo(subpath);

    /// <summary>Lists the files and folders directly inside a folder.</summary>
    /// <param name="subpath">The folder, with <c>/</c> between folders; empty or <c>/</c> for the root.</param>
    /// <returns>The folder's contents, or <see cref="NotFoundDirectoryContents.Singleton"/> when there is no such folder.</returns>
    public IDirectoryContents GetDirectoryContents(string subpath) => _tree.GetDirectoryContents(subpath);

    /// <summary>Returns a token that never fires: the files are a snapshot taken when they were loaded.</summary>
    /// <param name="filter">Ignored.</param>
    /// <returns><see cref="NullChangeToken.Singleton"/>.</returns>
    public IChangeToken Watch(string filter) => NullChangeToken.Singleton;

    // The contents are the target's, so are their time and ETag; a link's own time says when it was made.
    private static DateTimeOffset TargetModified(ListedFile file)
    {
        try
        {
            return File.ResolveLinkTarget(file.Path, returnFinalTarget: true) is { Exists: true } target
                ? new DateTimeOffset(target.LastWriteTimeUtc, TimeSpan.Zero)
                : file.LastModified;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return file.LastModified;
        }
    }

    private static InvalidOperationException TooLarge(string root, string[] paths, long memoryLimit)
    {
        long size = 0;
        foreach (string path in paths)
        {
            try
            {
                size += new FileInfo(path).Length;
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                // Gone or unreadable since: the size is a report, not a promise.
            }
        }

        string sizes = string.Create(
            CultureInfo.InvariantCulture, $"holds {size:N0} bytes, more than the preloaded provider's limit of {memoryLimit:N0} bytes");
        return new InvalidOperationException($"The folder '{root}' {sizes}. Raise the limit, or serve the folder from disk or from a pack.");
    }
}
