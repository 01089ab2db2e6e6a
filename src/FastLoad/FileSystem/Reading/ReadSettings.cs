using System.Buffers;

namespace FastLoad.FileSystem;

/// <summary>
/// How each file of a load is read: the strategy thresholds, and the choices the engine takes from the loader's options
/// when a load starts (the pool, buffering, mapping), fixed for the load.
/// </summary>
internal sealed class ReadSettings
{
    /// <summary>
    /// From this size a file is read with several positional reads in flight rather than one after another; below it,
    /// one read per file at a deep file queue wins (docs/measurements/benchmarks.md).
    /// </summary>
    internal const long LargeFileThreshold = 16L * 1024 * 1024;

    /// <summary>
    /// From this size <see cref="FileBuffering.Auto"/> reads unbuffered: a one-shot read of a GiB or more would push
    /// that much of everything else out of the page cache. Below it, buffered, the common case. Neither is reliably the
    /// faster (docs/measurements/benchmarks.md), so the threshold rests on keeping the cache, not on speed.
    /// </summary>
    internal const long AutoUnbufferedThreshold = 1L << 30;

    /// <summary>The size of one positional read of a large file.</summary>
    internal const int ChunkSize = 16 * 1024 * 1024;

    /// <summary>
    /// Buffered reads in flight per large file, each a contiguous range read in order through its own open file
    /// description (see <see cref="ChunkedReader"/>): 4 such ranges beat more requests taking turns over one
    /// descriptor, which break the kernel's readahead (docs/measurements/benchmarks.md).
    /// </summary>
    internal const int ReadsInFlight = 4;

    /// <summary>
    /// A buffered file gets a range per this many bytes, rounded up, and at most <see cref="ReadsInFlight"/>: a
    /// much shorter range ends before its readahead has grown (docs/measurements/benchmarks.md).
    /// </summary>
    internal const long BufferedBytesPerRange = 32L * 1024 * 1024;

    /// <summary>Unbuffered reads have no readahead, so several in flight pay (docs/measurements/benchmarks.md).</summary>
    internal const int UnbufferedReadsInFlight = 4;

    private int _fallbackLogged;

    /// <summary>Where arrays come from: the loader's pool, or <see cref="ArrayPool{T}.Shared"/>.</summary>
    /// <remarks>
    /// Looked up when first asked for: with the default buffers only files that report no length use it, and setting up
    /// the shared pool costs a new process more than reading a few files.
    /// </remarks>
    public ArrayPool<byte> Pool => OwnPool ?? ArrayPool<byte>.Shared;

    /// <summary>The pool the loader was given, or <see langword="null"/> for the shared one.</summary>
    public ArrayPool<byte>? OwnPool { get; init; }

    /// <summary>The memory a whole file may take, asked for each file of <see cref="FileSystem.AvailableMemory.CheckThreshold"/> bytes or more.</summary>
    public required Func<long> AvailableMemory { get; init; }

    /// <summary>No pool was given: files go into native blocks (see <see cref="NativeBlockPool"/>).</summary>
    public bool UsesDefaultBuffers => OwnPool is null;

    /// <summary>What a file of <paramref name="length"/> bytes costs the budget: its buffer's real size with the default buffers.</summary>
    public long BudgetCharge(long length) => UsesDefaultBuffers ? NativeBlockPool.Footprint(length) : length;

    /// <summary>Whether a file of <paramref name="length"/> bytes goes into a native block rather than a pooled array.</summary>
    public bool UsesNativeBlock(long length) => UsesDefaultBuffers && length > 0;

    public FileBuffering Buffering { get; init; }

    public bool MemoryMapped { get; init; }

    /// <summary>Treat every unbuffered open as refused by the file system (tests force the fallback path with it).</summary>
    public bool SimulateRefusal { get; init; }

    /// <summary>Called the first time in a load that an unbuffered read falls back to buffered (path, reason).</summary>
    public Action<string, string>? FallbackObserved { get; init; }

    public bool IsLarge(long length) => length >= LargeFileThreshold;

    public bool WantsUnbuffered(long length) => IsLarge(length) && Buffering switch
    {
        FileBuffering.Unbuffered => true,
        FileBuffering.Auto => length >= AutoUnbufferedThreshold,
        _ => false,
    };

    public void ReportFallback(string path, string reason)
    {
        if (Interlocked.Exchange(ref _fallbackLogged, 1) == 0)
        {
            FallbackObserved?.Invoke(path, reason);
        }
    }
}
