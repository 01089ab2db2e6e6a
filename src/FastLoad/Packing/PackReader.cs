using System.Buffers;
using System.Runtime.CompilerServices;
using FastLoad.Engine;
using FastLoad.FileSystem;
using FastLoad.Packing;
using Microsoft.Win32.SafeHandles;

namespace FastLoad;

/// <summary>
/// Reads a pack written by <see cref="PackWriter"/>: every entry at sequential speed, one entry by name, or all of them
/// to a folder. Header, footer and index are checked when the pack is opened, and each block's stored bytes against
/// their hash whenever the block is read, before it is decoded (in a pack written before block hashes, each entry's
/// contents against theirs instead). Thread-safe: any number of reads may run at once.
/// </summary>
/// <example>
/// <code>
/// await using PackReader pack = await PackReader.OpenAsync("assets.fpk");
/// await foreach (LoadedFile entry in pack.LoadAllAsync())
/// {
///     using (entry) Parse(entry.Path, entry.Data.Span); // an entry is at most Array.MaxLength bytes, so Data is always valid
/// }
/// </code>
/// </example>
public sealed class PackReader : IDisposable, IAsyncDisposable
{
    // Where the kernel cannot be asked to read ahead, a few large reads in flight keep the device busy; the threads also
    // decode, so at least one per core.
    private const int MinReadsInFlight = 16;

    // Random reads hold at most this many decoded blocks (4 MiB at the default block size), shared by every reader.
    private const int CachedBlocks = 4;

    private readonly SafeFileHandle _handle;
    private readonly PackIndex _index;
    private readonly PackReaderOptions _options;
    private readonly ArrayPool<byte> _pool;
    private readonly PackBlockCache _blockCache;
    private Task<DecodedBlock>? _firstBlock;
    private int _disposed;

    private PackReader(string path, SafeFileHandle handle, PackIndex index, PackReaderOptions options, Task<DecodedBlock>? firstBlock)
    {
        Path = path;
        _handle = handle;
        _index = index;
        _options = options;
        _pool = options.BufferPool ?? ArrayPool<byte>.Shared;
        _blockCache = new PackBlockCache(handle, path, index.Blocks, _pool, CachedBlocks);
        _firstBlock = firstBlock;
        ChecksEntryHashes = options.VerifyEntryHashes || !index.HasBlockHashes;
    }

    /// <summary>
    /// Whether each entry read is checked against the hash of its contents: when asked (<see cref="PackReaderOptions.VerifyEntryHashes"/>),
    /// or when the pack has no block hashes to check instead.
    /// </summary>
    internal bool ChecksEntryHashes { get; }

    /// <summary>Whether the first block is being read ahead for <see cref="LoadAllAsync"/> (for tests).</summary>
    internal bool ReadsFirstBlockAhead => Volatile.Read(ref _firstBlock) is not null;

    /// <summary>Gets the path of the pack, as given to <see cref="OpenAsync(string, PackReaderOptions?, CancellationToken)"/>.</summary>
    public string Path { get; }

    /// <summary>Gets the entries of the pack, in the order they were packed.</summary>
    public IReadOnlyList<PackEntry> Entries => _index.Entries;

    /// <summary>Gets the total uncompressed length of the entries, in bytes.</summary>
    public long DataLength => _index.DataLength;

    /// <summary>Opens a pack with the default options and checks its header, footer and index.</summary>
    /// <param name="path">The pack file.</param>
    /// <param name="cancellationToken">Stops the opening.</param>
    /// <returns>The open pack; dispose it to close the file.</returns>
    /// <exception cref="ArgumentException"><paramref name="path"/> is <see langword="null"/> or empty.</exception>
    /// <exception cref="FileNotFoundException">The pack does not exist.</exception>
    /// <exception cref="InvalidDataException">
    /// The pack is truncated, has a wrong magic number or version, or an index that is corrupt; the message names what
    /// and the offset.
    /// </exception>
    /// <exception cref="IOException">The pack could not be read.</exception>
    /// <exception cref="UnauthorizedAccessException">The pack could not be opened for reading.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public static Task<PackReader> OpenAsync(string path, CancellationToken cancellationToken = default) =>
        OpenAsync(path, null, cancellationToken);

    /// <summary>Opens a pack and checks its header, footer and index before anything else.</summary>
    /// <remarks>
    /// Once the index's block records are checked, the first block is read and decoded on a thread of its own while the
    /// entries are parsed, for <see cref="LoadAllAsync"/> to start from. Its buffer is not rented from
    /// <see cref="PackReaderOptions.BufferPool"/>: a reader that only reads entries by name leaves it to the garbage collector.
    /// In a process whose thread pool has no thread yet and where no synchronization context is current (a console
    /// application's start), the pack is opened on the calling thread and the task returned has completed: starting the
    /// pool costs more than reading the index.
    /// </remarks>
    /// <param name="path">The pack file.</param>
    /// <param name="options">The memory budget and buffer pool; <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Stops the opening.</param>
    /// <returns>The open pack; dispose it to close the file.</returns>
    /// <exception cref="ArgumentException">
    /// <paramref name="path"/> is <see langword="null"/> or empty, or <paramref name="options"/> has a value out of
    /// range.
    /// </exception>
    /// <exception cref="FileNotFoundException">The pack does not exist.</exception>
    /// <exception cref="InvalidDataException">
    /// The pack is truncated, has a wrong magic number or version, or an index that is corrupt; the message names what
    /// and the offset.
    /// </exception>
    /// <exception cref="IOException">The pack could not be read.</exception>
    /// <exception cref="UnauthorizedAccessException">The pack could not be opened for reading.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public static Task<PackReader> OpenAsync(string path, PackReaderOptions? options, CancellationToken cancellationToken = default) =>
        OpenAsync(path, options, readFirstBlockAhead: true, cancellationToken);

    /// <param name="path">The pack file.</param>
    /// <param name="options">The memory budget and buffer pool; <see langword="null"/> for the defaults.</param>
    /// <param name="readFirstBlockAhead">
    /// Whether the first block is read and decoded while the index is parsed: for a reader whose next step is
    /// <see cref="LoadAllAsync"/>, not for one that reads entries by name (a file provider).
    /// </param>
    /// <param name="cancellationToken">Stops the opening.</param>
    internal static Task<PackReader> OpenAsync(string path, PackReaderOptions? options, bool readFirstBlockAhead, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        options = (options ?? new PackReaderOptions()).Clone();
        if (options.Validate() is { } failure)
        {
            throw new ArgumentException(failure, nameof(options));
        }

        if (!CallerWaits.Cheaper)
        {
            return Task.Run(() => Open(path, options, readFirstBlockAhead), cancellationToken);
        }

        // No pool threads yet: reading the header and the index here costs less than starting them.
        if (cancellationToken.IsCancellationRequested)
        {
            return Task.FromCanceled<PackReader>(cancellationToken);
        }

        try
        {
            return Task.FromResult(Open(path, options, readFirstBlockAhead));
        }
        catch (Exception ex)
        {
            return Task.FromException<PackReader>(ex);
        }
    }

    private static PackReader Open(string path, PackReaderOptions options, bool readFirstBlockAhead)
    {
        // Opened like every loaded file: a FIFO in its place cannot block, and Windows runs the block reads at once.
        SafeFileHandle handle = ReadableFile.Open(path, out long length);
        LoadObservers.FileRead(path);
        Task<DecodedBlock>? firstBlock = null;
        try
        {
            // A whole-pack load starts with the first block: reading and decoding it while the entries are parsed puts its
            // read, and under the JIT the decoder's compilation, beside the parse instead of after it.
            PackIndex index = readFirstBlockAhead
                ? PackIndex.Read(handle, path, length, blocks => firstBlock = StartFirstBlock(handle, path, blocks))
                : PackIndex.Read(handle, path, length);
            return new PackReader(path, handle, index, options, firstBlock);
        }
        catch
        {
            Observe(firstBlock);
            handle.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Reads and decodes the first block on a thread of its own (a new process's thread pool starts slowly), into a pool
    /// of its own: a reader that never loads the whole pack leaves it to the garbage collector, and rents nothing from
    /// the application's pool on another thread than the caller's.
    /// </summary>
    private static Task<DecodedBlock>? StartFirstBlock(SafeFileHandle handle, string path, PackBlock[] blocks) =>
        blocks.Length == 0
            ? null
            : Task.Factory.StartNew(
                () => DecodedBlock.Read(handle, path, blocks, 0, ArrayPool<byte>.Create()),
                CancellationToken.None,
                TaskCreationOptions.LongRunning,
                TaskScheduler.Default);

    /// <summary>Observes the first block's failure, if it is never loaded (a pack closed during its read, say).</summary>
    private static void Observe(Task<DecodedBlock>? firstBlock) =>
        firstBlock?.ContinueWith(static read => _ = read.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted, TaskScheduler.Default);

    /// <summary>
    /// Loads every entry, in pack order: a few large reads in flight, blocks decoded on all cores, within
    /// <see cref="PackReaderOptions.MemoryBudget"/>. Each block is checked against its hash before it is decoded (and, where
    /// <see cref="PackReaderOptions.VerifyEntryHashes"/> asks, each entry against its own before it is handed over).
    /// </summary>
    /// <param name="cancellationToken">Stops the load; every buffer not handed over is returned to the pool.</param>
    /// <returns>The entries as <see cref="LoadedFile"/>s whose <see cref="LoadedFile.Path"/> is the entry name; dispose each to return its buffer.</returns>
    /// <remarks>
    /// An entry that lies in one block is a view of that decoded block rather than a copy: the block's buffer goes back
    /// to the pool when every entry in it is disposed, so keeping one small entry keeps its block (at most
    /// <see cref="PackOptions.BlockSize"/> bytes) in memory. Copy what you keep for long.
    /// Where the thread pool has no thread yet and no synchronization context is current, the enumerator waits on the
    /// calling thread for a block still being decoded, rather than continue on a pool thread the runtime would start
    /// first.
    /// </remarks>
    /// <exception cref="ObjectDisposedException">The reader was disposed.</exception>
    /// <exception cref="InvalidDataException">A block or an entry does not match its hash, or a block does not decode; the message names it and the offset.</exception>
    /// <exception cref="IOException">The pack could not be read.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public IAsyncEnumerable<LoadedFile> LoadAllAsync(CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        return LoadAllCoreAsync(cancellationToken);
    }

    /// <summary>Gets how many blocks <see cref="LoadAllAsync"/> reads and decodes at once, each on a thread of its own.</summary>
    /// <value>
    /// One per block of the pack, up to the number of cores (at least 2) on Linux, where the kernel is asked to read up to
    /// 32 MiB ahead of them; elsewhere up to 16 or the number of cores, whichever is larger.
    /// </value>
    /// <remarks>What a whole-pack load runs at once, as the <c>fastload</c> tool reports it.</remarks>
    public int ReadsInFlight => Math.Clamp(
        _index.Blocks.Length,
        1,
        PackReadAhead.IsSupported ? Math.Max(2, Environment.ProcessorCount) : Math.Max(MinReadsInFlight, Environment.ProcessorCount));

    private async IAsyncEnumerable<LoadedFile> LoadAllCoreAsync([EnumeratorCancellation] CancellationToken cancellationToken)
    {
        PackBlock[] blocks = _index.Blocks;
        PackEntry[] entries = _index.Entries;
        if (blocks.Length == 0)
        {
            // No data: every entry is empty.
            foreach (PackEntry entry in entries)
            {
                cancellationToken.ThrowIfCancellationRequested();
                yield return Handover(entry, _pool.Rent(0));
            }

            yield break;
        }

        int window = ReadsInFlight;
        using PackReadAhead? readAhead = PackReadAhead.IsSupported ? new(_handle, blocks[0].Offset, blocks[^1].Offset + blocks[^1].StoredLength) : null;
        using var threads = new DedicatedThreadScheduler(window, "FastLoad pack");
        // Blocks k..next-1 are in flight, each at its own index: an array rather than a Queue of tuples, whose generic
        // code is not precompiled and would be compiled at the load's start.
        var inFlight = new Task<DecodedBlock>?[blocks.Length];
        int[] firstEntryIn = FirstEntryStartingIn(blocks.Length);
        Func<PackEntry, InvalidDataException>? hashMismatch = ChecksEntryHashes ? HashMismatch : null;

        // Bytes the load holds against the budget: blocks in flight, the block being handed over and the entries being
        // assembled. A block is charged with the entries that start in it, so that reading ahead leaves room for them;
        // an entry is released when handed over, as FileLoader does.
        long[] startingEntries = EntryBytesStartingIn(blocks.Length);
        long charged = 0;
        int next = 0;
        DecodedBlock? block = null;
        PackEntry? partialEntry = null;
        byte[]? partial = null;
        int partialFilled = 0;
        try
        {
            for (int k = 0; k < blocks.Length; k++)
            {
                while (next < blocks.Length
                    && next - k < window
                    && (next == k || charged + Charge(blocks[next]) + startingEntries[next] <= _options.MemoryBudget))
                {
                    int b = next++;
                    readAhead?.Advance(blocks[b].Offset);
                    charged += Charge(blocks[b]) + startingEntries[b];
                    Task<DecodedBlock>? readAlready = b == 0 ? Interlocked.Exchange(ref _firstBlock, null) : null;
                    inFlight[b] = Task.Factory.StartNew(
                        () => DecodedBlock.Decode(
                            _handle, Path, blocks, b, (long)b * _index.BlockSize, entries, firstEntryIn[b], firstEntryIn[b + 1], _pool, hashMismatch, readAlready),
                        cancellationToken,
                        TaskCreationOptions.None,
                        threads);
                }

                Task<DecodedBlock> task = inFlight[k]!;
                inFlight[k] = null;
                if (!task.IsCompleted && CallerWaits.Cheaper)
                {
                    // The block's thread completes it; continuing on the pool would start the pool first.
                    ((Task)task).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing).GetAwaiter().GetResult();
                }

                block = await task.ConfigureAwait(false);
                int rawLength = blocks[k].RawLength;

                // An entry that began in an earlier block goes on here, and may end here.
                if (partialEntry is not null)
                {
                    int count = (int)Math.Min(partialEntry.Length - partialFilled, rawLength);
                    block.Raw.AsSpan(0, count).CopyTo(partial.AsSpan(partialFilled));
                    partialFilled += count;
                    if (partialFilled == partialEntry.Length)
                    {
                        PackEntry entry = partialEntry;
                        byte[] data = partial!;
                        (partialEntry, partial) = (null, null);
                        charged -= entry.Length;
                        yield return HandoverChecked(entry, data);
                    }
                }

                // The entries that start and end here, checked by the block's thread: views of the block, no copy.
                long blockStart = (long)k * _index.BlockSize;
                for (int i = firstEntryIn[k]; i < firstEntryIn[k] + block.Verified; i++)
                {
                    PackEntry entry = entries[i];
                    var slice = new PackBlockSlice(block, (int)(entry.DataOffset - blockStart), (int)entry.Length);
                    charged -= entry.Length;
                    yield return new LoadedFile(entry.Name, entry.Index, slice, budgetCharge: 0);
                }

                if (block.Failure is { } failure)
                {
                    throw failure;
                }

                // The entry after them, if it starts here, goes on into the next block.
                int spanning = firstEntryIn[k] + block.Verified;
                if (spanning < firstEntryIn[k + 1])
                {
                    partialEntry = entries[spanning];
                    partial = _pool.Rent((int)partialEntry.Length);
                    int from = (int)(partialEntry.DataOffset - blockStart);
                    partialFilled = rawLength - from;
                    block.Raw.AsSpan(from, partialFilled).CopyTo(partial);
                }

                block.Release();
                block = null;
                charged -= Charge(blocks[k]);
            }
        }
        finally
        {
            block?.Release();
            if (partial is not null)
            {
                _pool.Return(partial);
            }

            // Only a load that ends early leaves blocks in flight: a whole load does not call DrainAsync, whose start, generic
            // over its state machine, the JIT would compile at a new process's first load.
            if (AnyInFlight(inFlight))
            {
                await DrainAsync(inFlight).ConfigureAwait(false);
            }
        }
    }

    private LoadedFile Handover(PackEntry entry, byte[] data) => new(entry.Name, entry.Index, data, (int)entry.Length, _pool, budgetCharge: 0);

    /// <summary>Hands over an entry assembled from several blocks, once its hash matches where entries are checked.</summary>
    private LoadedFile HandoverChecked(PackEntry entry, byte[] data)
    {
        if (!MatchesItsHash(entry, data.AsSpan(0, (int)entry.Length)))
        {
            _pool.Return(data);
            throw HashMismatch(entry);
        }

        return Handover(entry, data);
    }

    /// <summary>Whether <paramref name="data"/>, an entry's whole contents, matches its hash, where entries are checked (<see cref="ChecksEntryHashes"/>).</summary>
    private bool MatchesItsHash(PackEntry entry, ReadOnlySpan<byte> data) => !ChecksEntryHashes || PackHash.Hash(data) == entry.ContentHash;

    internal InvalidDataException HashMismatch(PackEntry entry) =>
        PackErrors.CorruptEntry(Path, BlockOf(entry).Offset, entry.Index, entry.Name, "its contents do not match its hash");

    private PackBlock BlockOf(PackEntry entry) =>
        _index.Blocks.Length == 0
            ? new PackBlock(PackFormat.HeaderSize, 0, 0, 0, null)
            : _index.Blocks[Math.Min(entry.DataOffset / _index.BlockSize, _index.Blocks.Length - 1)];

    private static bool AnyInFlight(Task<DecodedBlock>?[] inFlight)
    {
        foreach (Task<DecodedBlock>? task in inFlight)
        {
            if (task is not null)
            {
                return true;
            }
        }

        return false;
    }

    private static async Task DrainAsync(Task<DecodedBlock>?[] inFlight)
    {
        foreach (Task<DecodedBlock>? task in inFlight)
        {
            if (task is null)
            {
                continue;
            }

            try
            {
                (await task.ConfigureAwait(false)).Release();
            }
            catch
            {
                // Stopped or failed while the load was already ending: its buffer is already back.
            }
        }
    }

    private static long Charge(PackBlock block) => (long)block.StoredLength + block.RawLength;

    /// <summary>
    /// Per block, the first entry that starts in it, and one more item: the entry count. Empty entries at the very end
    /// start in the last block.
    /// </summary>
    private int[] FirstEntryStartingIn(int blockCount)
    {
        var first = new int[blockCount + 1];
        int k = 0;
        PackEntry[] entries = _index.Entries;
        for (int i = 0; i < entries.Length; i++)
        {
            int block = (int)Math.Min(entries[i].DataOffset / _index.BlockSize, blockCount - 1);
            while (k < block)
            {
                first[++k] = i;
            }
        }

        while (k < blockCount)
        {
            first[++k] = entries.Length;
        }

        return first;
    }

    /// <summary>Per block, the bytes of the entries that start in it (entries are in data order).</summary>
    private long[] EntryBytesStartingIn(int blockCount)
    {
        var bytes = new long[blockCount];
        foreach (PackEntry entry in _index.Entries)
        {
            if (entry.Length > 0)
            {
                bytes[Math.Min(entry.DataOffset / _index.BlockSize, blockCount - 1)] += entry.Length;
            }
        }

        return bytes;
    }

    /// <summary>
    /// Reads one whole entry: only the blocks it lies in are read and decoded, one at a time, through the block cache that
    /// every random read of the pack shares (four blocks).
    /// </summary>
    /// <param name="name">The entry's name, as in <see cref="PackEntry.Name"/> (ordinal, case-sensitive).</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <returns>A copy of the entry's contents, yours to keep.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The reader was disposed.</exception>
    /// <exception cref="KeyNotFoundException">The pack has no entry of that name.</exception>
    /// <exception cref="InvalidDataException">A block does not match its hash or does not decode, or the entry does not match its hash; the message names it and the offset.</exception>
    /// <exception cref="IOException">The pack could not be read.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public Task<ReadOnlyMemory<byte>> ReadEntryAsync(string name, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(name);
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (!_index.ByName.TryGetValue(name, out PackEntry? entry))
        {
            throw new KeyNotFoundException($"'{Path}' has no entry named '{name}'.");
        }

        return Task.Run(() => ReadEntry(entry, cancellationToken), cancellationToken);
    }

    private ReadOnlyMemory<byte> ReadEntry(PackEntry entry, CancellationToken cancellationToken)
    {
        byte[] data = GC.AllocateUninitializedArray<byte>((int)entry.Length);
        int filled = 0;
        while (filled < data.Length)
        {
            cancellationToken.ThrowIfCancellationRequested();
            filled += ReadAt(entry, filled, data.AsSpan(filled, Math.Min(data.Length - filled, _index.BlockSize)));
        }

        if (!MatchesItsHash(entry, data))
        {
            throw HashMismatch(entry);
        }

        return data;
    }

    /// <summary>
    /// Copies the entry's bytes from <paramref name="position"/> into <paramref name="destination"/>, decoding only the
    /// blocks they lie in, through the block cache. Does not check the entry's hash: the caller does, when it has read
    /// the whole entry, where entries are checked (<see cref="VerifyInOneBlock"/>, <see cref="PackHash.Incremental"/>).
    /// </summary>
    /// <returns>The bytes copied: all of <paramref name="destination"/>, or up to the entry's end; 0 at or past it.</returns>
    internal int ReadAt(PackEntry entry, long position, Span<byte> destination)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (position >= entry.Length)
        {
            return 0;
        }

        int total = (int)Math.Min(destination.Length, entry.Length - position);
        long at = entry.DataOffset + position;
        int filled = 0;
        while (filled < total)
        {
            int k = (int)(at / _index.BlockSize);
            int from = (int)(at - ((long)k * _index.BlockSize));
            int count = Math.Min(total - filled, _index.Blocks[k].RawLength - from);
            using (PackBlockCache.Lease block = _blockCache.Acquire(k))
            {
                block.Data.AsSpan(from, count).CopyTo(destination[filled..]);
            }

            filled += count;
            at += count;
        }

        return total;
    }

    /// <summary>Whether the entry lies in one block, so that its hash is checked from that block alone.</summary>
    internal bool LiesInOneBlock(PackEntry entry) =>
        entry.Length == 0 || entry.DataOffset / _index.BlockSize == (entry.DataOffset + entry.Length - 1) / _index.BlockSize;

    /// <summary>Checks the hash of an entry that lies in one block, from the cached block (no copy), where entries are checked.</summary>
    /// <exception cref="InvalidDataException">The entry's block or, where entries are checked, the entry does not match its hash.</exception>
    internal void VerifyInOneBlock(PackEntry entry)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (entry.Length == 0 || !ChecksEntryHashes)
        {
            return;
        }

        int k = (int)(entry.DataOffset / _index.BlockSize);
        int from = (int)(entry.DataOffset - ((long)k * _index.BlockSize));
        using PackBlockCache.Lease block = _blockCache.Acquire(k);
        if (!MatchesItsHash(entry, block.Data.AsSpan(from, (int)entry.Length)))
        {
            throw HashMismatch(entry);
        }
    }

    /// <summary>
    /// Writes every entry under a folder, creating subfolders. Never writes outside it: a name cannot leave it (names
    /// are checked when the pack is opened), and an existing symbolic link on the way, or in place of an entry, is refused.
    /// </summary>
    /// <param name="directory">The target folder, created if missing. Existing regular files of the same names are replaced.</param>
    /// <param name="cancellationToken">Stops the extraction; files already written stay.</param>
    /// <returns>A task that completes when every entry is written.</returns>
    /// <exception cref="ArgumentException"><paramref name="directory"/> is <see langword="null"/> or empty.</exception>
    /// <exception cref="ObjectDisposedException">The reader was disposed.</exception>
    /// <exception cref="InvalidDataException">A block does not match its hash or does not decode, or an entry does not match its hash.</exception>
    /// <exception cref="IOException">
    /// A file could not be written, a symbolic link or non-directory stands where an entry's folder or file goes, or
    /// two entries differ only by case and the file system ignores case (the second is not written).
    /// </exception>
    /// <exception cref="UnauthorizedAccessException">A file or folder could not be created.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public Task ExtractAsync(string directory, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(directory);
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        return ExtractCoreAsync(System.IO.Path.GetFullPath(directory), cancellationToken);
    }

    private async Task ExtractCoreAsync(string root, CancellationToken cancellationToken)
    {
        Directory.CreateDirectory(root);
        var safeDirectories = new HashSet<string>(StringComparer.Ordinal);
        Dictionary<string, string> extracted = PackExtraction.CreateExtractedFiles();
        await foreach (LoadedFile entry in LoadAllAsync(cancellationToken).ConfigureAwait(false))
        {
            using (entry)
            {
                // Linux walks from open folder handles, so a folder swapped for a link mid-extraction is refused; other
                // platforms check each folder by path first (docs/reliability.md says what they lack).
                using SafeFileHandle file = OperatingSystem.IsLinux()
                    ? PackExtraction.CreateTargetLinux(root, entry.Path, extracted)
                    : File.OpenHandle(
                        PackExtraction.PrepareTarget(root, entry.Path, safeDirectories, extracted),
                        FileMode.CreateNew,
                        FileAccess.Write,
                        FileShare.None,
                        FileOptions.None,
                        entry.Length);
                await RandomAccess.WriteAsync(file, entry.Data, 0, cancellationToken).ConfigureAwait(false);
            }
        }
    }

    /// <summary>Closes the pack file and returns the cached blocks to the pool. Loads and reads still running fail; later calls do nothing.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            Observe(Interlocked.Exchange(ref _firstBlock, null));
            _handle.Dispose();
            _blockCache.Dispose();
        }
    }

    /// <summary>Closes the pack file, as <see cref="Dispose"/> does: nothing in it waits.</summary>
    /// <returns>A completed task.</returns>
    public ValueTask DisposeAsync()
    {
        Dispose();
        return ValueTask.CompletedTask;
    }
}
