using System.Buffers;
using System.Runtime.ExceptionServices;
using System.Threading.Tasks.Dataflow;
using FastLoad.FileSystem;
using K4os.Compression.LZ4;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Packing;

/// <summary>
/// One pack being written: loader (input order) -> blocks filled in order -> compress block (all cores, ordered) ->
/// write block (one at a time, at increasing offsets) -> index and footer -> flush -> rename over the target.
/// </summary>
internal sealed class PackBuilder
{
    private readonly SafeFileHandle _handle;
    private readonly PackOptions _options;
    private readonly ArrayPool<byte> _pool = ArrayPool<byte>.Shared;
    private readonly List<PackBlock> _blocks = [];
    private long _position = PackFormat.HeaderSize;

    private PackBuilder(SafeFileHandle handle, PackOptions options)
    {
        _handle = handle;
        _options = options;
    }

    public static async Task<PackSummary> CreateAsync(string packPath, FileSet files, PackOptions options, CancellationToken cancellationToken)
    {
        List<string> paths = files.EnumeratePaths().ToList();
        // Every path takes part in the set's common folder, special files too: no name depends on what is left out.
        string[] names = NameFiles(files, paths);
        string fullPackPath = Path.GetFullPath(packPath);
        // A name of its own per writer: two packs written to one target at once must not share (and delete) a partial file.
        string partialPath = $"{fullPackPath}.{Guid.NewGuid():N}.partial";
        PackSummary summary;
        try
        {
            using (SafeFileHandle handle = File.OpenHandle(partialPath, FileMode.CreateNew, FileAccess.Write, FileShare.None))
            {
                summary = await new PackBuilder(handle, options).WriteAsync(paths, names, cancellationToken).ConfigureAwait(false);
            }

            File.Move(partialPath, fullPackPath, overwrite: true);
        }
        catch
        {
            TryDelete(partialPath);
            throw;
        }

        return summary;
    }

    /// <summary>
    /// For a file the load could not read: what to report when it is not a regular file and <paramref name="skip"/>
    /// is set. Throws what the load met for any other file, and for a special file unless <paramref name="skip"/>.
    /// </summary>
    private static LoadFailure LeaveOutSpecialFile(string path, Exception error, bool skip)
    {
        string? kind = SpecialKind(path);
        if (kind is null)
        {
            ExceptionDispatchInfo.Throw(error);
        }

        if (!skip)
        {
            throw new IOException(
                $"'{path}' is {kind}, not a regular file; a pack holds regular files only. Remove it, or set "
                + $"{nameof(PackOptions)}.{nameof(PackOptions.SkipSpecialFiles)} (fastload pack --skip-special-files) to leave such files out.");
        }

        return new LoadFailure(path, new IOException($"'{path}' is {kind}, not a regular file; it was left out of the pack."));
    }

    /// <summary>
    /// What <paramref name="path"/> is when it is there but holds no bytes to pack (a FIFO, socket or device, a symbolic
    /// link to a folder or to nothing); <see langword="null"/> for a regular file, or for a path the load reports itself
    /// (missing, unreadable).
    /// </summary>
    private static string? SpecialKind(string path)
    {
        try
        {
            FileKind kind = FileStatus.Get(path).Kind;
            return kind is FileKind.Regular or FileKind.Unknown ? null : FileStatus.Describe(kind);
        }
        catch (FileNotFoundException) when (new FileInfo(path).LinkTarget is { } target)
        {
            return $"a symbolic link to '{target}', which does not exist";
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>Names each file by its path relative to the set's root, with '/'; refuses names a reader would refuse.</summary>
    internal static string[] NameFiles(FileSet files, List<string> paths)
    {
        string root = files.RootDirectory is { } directory ? Path.GetFullPath(directory) : CommonDirectory(paths);
        string[] names = new string[paths.Count];
        var seen = new Dictionary<string, string>(StringComparer.Ordinal);
        for (int i = 0; i < paths.Count; i++)
        {
            string name = Path.GetRelativePath(root, Path.GetFullPath(paths[i])).Replace(Path.DirectorySeparatorChar, '/');
            if (PackNames.Check(name) is { } problem)
            {
                throw new IOException($"'{paths[i]}' cannot be packed as '{name}': {problem}.");
            }

            if (!seen.TryAdd(name, paths[i]))
            {
                throw new IOException($"'{paths[i]}' and '{seen[name]}' would both be packed as '{name}'.");
            }

            names[i] = name;
        }

        return names;
    }

    private static string CommonDirectory(List<string> paths)
    {
        if (paths.Count == 0)
        {
            return Directory.GetCurrentDirectory();
        }

        string common = Path.GetDirectoryName(Path.GetFullPath(paths[0]))!;
        foreach (string path in paths)
        {
            string directory = Path.GetDirectoryName(Path.GetFullPath(path))!;
            while (!IsSameOrUnder(directory, common))
            {
                common = Path.GetDirectoryName(common) ?? Path.GetPathRoot(common)!;
            }
        }

        return common;
    }

    private static bool IsSameOrUnder(string directory, string parent) =>
        directory.Equals(parent, StringComparison.Ordinal)
        || (directory.StartsWith(parent, StringComparison.Ordinal)
            && (parent.EndsWith(Path.DirectorySeparatorChar) || directory[parent.Length] == Path.DirectorySeparatorChar));

    /// <summary>Writes the pack's blocks, index and footer; returns what it holds and the special files it left out.</summary>
    private async Task<PackSummary> WriteAsync(List<string> paths, string[] names, CancellationToken cancellationToken)
    {
        int cores = Environment.ProcessorCount;
        var compress = new TransformBlock<(byte[] Buffer, int Length), StoredBlock>(
            Compress,
            new ExecutionDataflowBlockOptions
            {
                MaxDegreeOfParallelism = cores,
                BoundedCapacity = 2 * cores,
                EnsureOrdered = true,
                CancellationToken = cancellationToken,
            });
        var write = new ActionBlock<StoredBlock>(
            Write,
            new ExecutionDataflowBlockOptions { MaxDegreeOfParallelism = 1, BoundedCapacity = 2 * cores, CancellationToken = cancellationToken });
        compress.LinkTo(write, new DataflowLinkOptions { PropagateCompletion = true });

        var entries = new List<(string Name, long Length, ulong Hash)>(paths.Count);
        List<LoadFailure> skipped = [];
        // Failures are collected so that only a file that failed is asked what it is: the open checks every other one.
        var loader = new FileLoader(new FileLoaderOptions { Ordering = LoadOrdering.Input, ErrorHandling = LoadErrorHandling.Collect });
        int blockSize = _options.BlockSize;
        byte[] current = _pool.Rent(blockSize);
        int filled = 0;
        try
        {
            await foreach (LoadedFile file in loader.LoadAsync(FileSet.FromPaths(paths), cancellationToken).ConfigureAwait(false))
            {
                using (file)
                {
                    if (file.Error is { } error)
                    {
                        skipped.Add(LeaveOutSpecialFile(file.Path, error, _options.SkipSpecialFiles));
                        continue;
                    }

                    if (file.Length > Array.MaxLength)
                    {
                        // The reader takes an entry into one buffer, so the format allows no more (docs/pack-format.md).
                        throw new IOException($"'{file.Path}' is {file.Length:N0} bytes; a pack entry holds at most {Array.MaxLength:N0} bytes.");
                    }

                    ReadOnlyMemory<byte> data = file.Data;
                    entries.Add((names[file.Index], data.Length, PackHash.Hash(data.Span)));
                    while (!data.IsEmpty)
                    {
                        int count = Math.Min(blockSize - filled, data.Length);
                        data.Span[..count].CopyTo(current.AsSpan(filled));
                        data = data[count..];
                        filled += count;
                        if (filled == blockSize)
                        {
                            byte[] full = current;
                            current = null!;
                            await SendOrThrowAsync(compress, write, (full, filled), cancellationToken).ConfigureAwait(false);
                            current = _pool.Rent(blockSize);
                            filled = 0;
                        }
                    }
                }
            }

            if (filled > 0)
            {
                byte[] last = current;
                current = null!;
                await SendOrThrowAsync(compress, write, (last, filled), cancellationToken).ConfigureAwait(false);
            }

            compress.Complete();
            await write.Completion.ConfigureAwait(false);
        }
        finally
        {
            if (current is not null)
            {
                _pool.Return(current);
            }

            // On failure, the write stage must stop before the caller closes the file under it.
            compress.Complete();
            try
            {
                await write.Completion.ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is IOException or OperationCanceledException or UnauthorizedAccessException)
            {
                // Already thrown above, or the consequence of what was.
            }
        }

        byte[] header = new byte[PackFormat.HeaderSize];
        PackFormat.WriteHeader(header);
        RandomAccess.Write(_handle, header, 0);
        byte[] index = PackIndex.Serialize(blockSize, _blocks, entries);
        RandomAccess.Write(_handle, index, _position);
        byte[] footer = new byte[PackFormat.FooterSize];
        PackFormat.WriteFooter(footer, _position, index.Length, PackHash.Hash(index));
        RandomAccess.Write(_handle, footer, _position + index.Length);
        RandomAccess.FlushToDisk(_handle);
        return new PackSummary(entries.Count, entries.Sum(entry => entry.Length), skipped);
    }

    private static async Task SendOrThrowAsync<T>(ITargetBlock<T> target, IDataflowBlock last, T item, CancellationToken cancellationToken)
    {
        if (!await target.SendAsync(item, cancellationToken).ConfigureAwait(false))
        {
            // Declined: a stage failed or was canceled; its completion carries the reason.
            await last.Completion.ConfigureAwait(false);
            cancellationToken.ThrowIfCancellationRequested();
            throw new IOException("The pack writer stopped unexpectedly.");
        }
    }

    /// <summary>Compresses a block where that pays, and hashes its stored bytes, on the compressing threads.</summary>
    private StoredBlock Compress((byte[] Buffer, int Length) block)
    {
        // LZ4 blocks must be smaller than raw ones (the reader relies on it), and smaller than the threshold to be worth decoding.
        int limit = (int)Math.Min(block.Length - 1L, (long)block.Length * _options.RawThresholdPercent / 100);
        if (limit > 0)
        {
            byte[] compressed = _pool.Rent(limit);
            ReadOnlySpan<byte> raw = block.Buffer.AsSpan(0, block.Length);

            // K4os returns 0 or less when the result does not fit the limit, so an incompressible block stops early. The
            // high-compression levels take several times as long to find that out: a block the fast level cannot bring
            // under the limit is stored raw without them.
            int length = LZ4Codec.Encode(raw, compressed.AsSpan(0, limit), LZ4Level.L00_FAST);
            if (length > 0 && _options.Level >= PackConstants.FirstHighCompressionLevel)
            {
                length = LZ4Codec.Encode(raw, compressed.AsSpan(0, limit), (LZ4Level)_options.Level);
            }

            if (length > 0)
            {
                _pool.Return(block.Buffer);
                return new StoredBlock(compressed, length, block.Length, PackFormat.CodecLz4, PackHash.Hash(compressed.AsSpan(0, length)));
            }

            _pool.Return(compressed);
        }

        return new StoredBlock(block.Buffer, block.Length, block.Length, PackFormat.CodecRaw, PackHash.Hash(block.Buffer.AsSpan(0, block.Length)));
    }

    private void Write(StoredBlock block)
    {
        try
        {
            RandomAccess.Write(_handle, block.Buffer.AsSpan(0, block.Length), _position);
            _blocks.Add(new PackBlock(_position, block.Length, block.RawLength, block.Codec, block.Hash));
            _position += block.Length;
        }
        finally
        {
            _pool.Return(block.Buffer);
        }
    }

    private static void TryDelete(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // The original error is the one to report.
        }
    }

    /// <summary>A block as it goes into the pack: its stored bytes (the first <paramref name="Length"/> of a rented buffer), how they decode, and their hash.</summary>
    private readonly record struct StoredBlock(byte[] Buffer, int Length, int RawLength, byte Codec, ulong Hash);
}
