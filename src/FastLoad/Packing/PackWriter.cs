using FastLoad.Packing;
using Microsoft.Extensions.Options;

namespace FastLoad;

/// <summary>
/// Writes packs: many files in one file of independently LZ4-compressed blocks, which <see cref="PackReader"/> loads
/// with a few large sequential reads (format: docs/pack-format.md).
/// </summary>
/// <example>
/// <code>
/// await PackWriter.CreateAsync("assets.fpk", FileSet.FromDirectory("assets"), new PackOptions());
/// </code>
/// </example>
public static class PackWriter
{
    /// <summary>
    /// Packs a set of files: reads them through a <see cref="FileLoader"/> in input order, compresses the blocks on all
    /// cores and writes the pack sequentially. The same files and options give the same bytes.
    /// </summary>
    /// <param name="packPath">The pack to create; an existing file is replaced, only once the new pack is complete.</param>
    /// <param name="files">
    /// The files to pack. Entry names are the paths relative to the directory of a <see cref="FileSet.FromDirectory"/> set,
    /// otherwise relative to the deepest directory that holds every file, with <c>/</c> between segments.
    /// </param>
    /// <param name="options">How to cut and compress blocks; <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Stops the packing; the partial pack is deleted.</param>
    /// <returns>
    /// A task that completes when the pack is written and flushed to the device: its entries, and the files left out
    /// with <see cref="PackOptions.SkipSpecialFiles"/>.
    /// </returns>
    /// <exception cref="ArgumentException">
    /// <paramref name="packPath"/> is <see langword="null"/> or empty, or <paramref name="options"/> has a value out of
    /// range (the message names it).
    /// </exception>
    /// <exception cref="ArgumentNullException"><paramref name="files"/> is <see langword="null"/>.</exception>
    /// <exception cref="IOException">
    /// A file could not be read, is not a regular file (a FIFO, socket or device, a symbolic link to a folder or to
    /// nothing) and <see cref="PackOptions.SkipSpecialFiles"/> is not set, is larger than an entry can hold
    /// (<see cref="Array.MaxLength"/> bytes), two files would get the same entry name, a name cannot be stored safely (it
    /// contains <c>:</c>, say), or the pack could not be written. The message names the file.
    /// </exception>
    /// <exception cref="UnauthorizedAccessException">A file could not be opened, or the pack could not be created.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public static Task<PackSummary> CreateAsync(string packPath, FileSet files, PackOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(packPath);
        ArgumentNullException.ThrowIfNull(files);
        PackOptions copy = (options ?? new PackOptions()).Clone();
        ValidateOptionsResult result = new PackOptionsValidator().Validate(Options.DefaultName, copy);
        if (result.Failed)
        {
            throw new ArgumentException(result.FailureMessage, nameof(options));
        }

        return PackBuilder.CreateAsync(packPath, files, copy, cancellationToken);
    }

    /// <summary>Packs every file under a directory, recursively; entry names are relative to it.</summary>
    /// <param name="packPath">The pack to create; an existing file is replaced, only once the new pack is complete.</param>
    /// <param name="rootDirectory">The directory to pack; symbolic links to directories are not followed.</param>
    /// <param name="options">How to cut and compress blocks; <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Stops the packing; the partial pack is deleted.</param>
    /// <returns>
    /// A task that completes when the pack is written and flushed to the device: its entries, and the files left out
    /// with <see cref="PackOptions.SkipSpecialFiles"/>.
    /// </returns>
    /// <exception cref="ArgumentException">
    /// <paramref name="packPath"/> or <paramref name="rootDirectory"/> is <see langword="null"/> or empty, or
    /// <paramref name="options"/> has a value out of range.
    /// </exception>
    /// <exception cref="DirectoryNotFoundException"><paramref name="rootDirectory"/> does not exist.</exception>
    /// <exception cref="IOException">
    /// A file could not be read, is not a regular file (a FIFO, socket or device, a dangling symbolic link) and
    /// <see cref="PackOptions.SkipSpecialFiles"/> is not set, or is larger than an entry can hold, a name cannot be stored
    /// safely, or the pack could not be written. The message names the file.
    /// </exception>
    /// <exception cref="UnauthorizedAccessException">A file or directory could not be opened, or the pack could not be created.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public static Task<PackSummary> CreateAsync(string packPath, string rootDirectory, PackOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(rootDirectory);
        return CreateAsync(packPath, FileSet.FromDirectory(rootDirectory), options, cancellationToken);
    }
}
