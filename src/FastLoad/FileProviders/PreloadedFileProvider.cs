using System.Globalization;
using FastLoad.FileProviders;
using Microsoft.Extensions.FileProviders;
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
/// Paths and names follow <c>PhysicalFileProvider</c>'s rules on the same host (see <see cref="PackFileProvider"/>);
/// every file is served, dot-prefixed ones included (as with <c>ExclusionFilters.None</c>); folders that hold no file
/// are not listed. Files are a snapshot: <see cref="Watch"/> never fires, <see cref="IFileInfo.LastModified"/> is the
/// time of the load, and <see cref="IFileInfo.PhysicalPath"/> is <see langword="null"/>, so that every reader reads the
/// snapshot rather than the disk. Thread-safe.
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

    private PreloadedFileProvider(string root, FileTree tree, long memoryUse, long memoryLimit)
    {
        Root = root;
        _tree = tree;
        MemoryUse = memoryUse;
        MemoryLimit = memoryLimit;
    }

    /// <summary>Gets the full path of the folder that was loaded.</summary>
    public string Root { get; }

    /// <summary>Gets the number of files served.</summary>
    public int FileCount => _tree.FileCount;

    /// <summary>Gets the bytes of file contents held in memory: the sum of the files' lengths, never more than <see cref="MemoryLimit"/>.</summary>
    public long MemoryUse { get; }

    /// <summary>Gets the limit the folder was loaded under, in bytes.</summary>
    public long MemoryLimit { get; }

    /// <summary>Loads every file under a folder, subfolders included, and serves them from memory.</summary>
    /// <param name="root">The folder.</param>
    /// <param name="memoryLimit">The most bytes of file contents to hold; the default is <see cref="DefaultMemoryLimit"/> (64 MiB).</param>
    /// <param name="loader">
    /// The loader to read with (its options: parallelism, budget, cold-start path); <see langword="null"/> for a new
    /// one with the default options.
    /// </param>
    /// <param name="cancellationToken">Stops the load.</param>
    /// <returns>The provider, holding every file of the folder.</returns>
    /// <exception cref="ArgumentException"><paramref name="root"/> is <see langword="null"/> or empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="memoryLimit"/> is negative.</exception>
    /// <exception cref="DirectoryNotFoundException"><paramref name="root"/> does not exist.</exception>
    /// <exception cref="InvalidOperationException">
    /// The folder holds more than <paramref name="memoryLimit"/> bytes; the message names the folder, its size and the
    /// limit.
    /// </exception>
    /// <exception cref="IOException">A file could not be read.</exception>
    /// <exception cref="UnauthorizedAccessException">A file or folder could not be opened.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public static async Task<PreloadedFileProvider> LoadAsync(
        string root, long memoryLimit = DefaultMemoryLimit, FileLoader? loader = null, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(root);
        ArgumentOutOfRangeException.ThrowIfNegative(memoryLimit);
        string fullRoot = Path.GetFullPath(root);
        loader ??= new FileLoader();
        FileSet set = FileSet.FromDirectory(fullRoot);
        var files = new List<(string Name, byte[] Data)>();
        long total = 0;
        await foreach (LoadedFile file in loader.LoadAsync(set, cancellationToken).ConfigureAwait(false))
        {
            using (file)
            {
                total += file.Length;
                if (total > memoryLimit)
                {
                    // Leaving the loop stops the load and returns its buffers; the folder's size is only needed now.
                    throw TooLarge(fullRoot, set, memoryLimit);
                }

                files.Add((NameOf(fullRoot, file.Path), file.Data.ToArray()));
            }
        }

        DateTimeOffset loaded = DateTimeOffset.UtcNow;
        var tree = new FileTree(files.Select(f => (f.Name, (IFileInfo)new MemoryFileInfo(f.Name, f.Data, loaded))), loaded);
        return new PreloadedFileProvider(fullRoot, tree, total, memoryLimit);
    }

    /// <summary>Finds a file of the folder.</summary>
    /// <param name="subpath">The file's path under the folder, with <c>/</c> between folders; a leading <c>/</c> is ignored.</param>
    /// <returns>The file, read from memory; or a <see cref="NotFoundFileInfo"/> for a folder, a missing file, or a path that leaves the root.</returns>
    public IFileInfo GetFileInfo(string subpath) => _tree.GetFileInfo(subpath);

    /// <summary>Lists the files and folders directly inside a folder.</summary>
    /// <param name="subpath">The folder, with <c>/</c> between folders; empty or <c>/</c> for the root.</param>
    /// <returns>The folder's contents, or <see cref="NotFoundDirectoryContents.Singleton"/> when there is no such folder.</returns>
    public IDirectoryContents GetDirectoryContents(string subpath) => _tree.GetDirectoryContents(subpath);

    /// <summary>Returns a token that never fires: the files are a snapshot taken when they were loaded.</summary>
    /// <param name="filter">Ignored.</param>
    /// <returns><see cref="NullChangeToken.Singleton"/>.</returns>
    public IChangeToken Watch(string filter) => NullChangeToken.Singleton;

    private static string NameOf(string root, string path)
    {
        string name = Path.GetRelativePath(root, path);
        return Path.DirectorySeparatorChar == '/' ? name : name.Replace(Path.DirectorySeparatorChar, '/');
    }

    private static InvalidOperationException TooLarge(string root, FileSet set, long memoryLimit)
    {
        long size = 0;
        foreach (string path in set.EnumeratePaths())
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
