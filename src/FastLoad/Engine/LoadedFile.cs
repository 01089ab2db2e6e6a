using System.Buffers;
using System.Diagnostics;
using FastLoad.FileSystem;

namespace FastLoad;

/// <summary>
/// One file of a load: its contents in a pooled buffer, or the error that kept it from loading.
/// </summary>
/// <remarks>
/// The buffer is rented from <see cref="FileLoaderOptions.BufferPool"/> (or, for unbuffered and mapped reads, is
/// native memory) and is released exactly once, on the first <see cref="Dispose"/>; after that, <see cref="Data"/>
/// throws instead of exposing a buffer that another file may be using. Dispose each file as soon as you are done with it.
/// </remarks>
[DebuggerDisplay("{Path,nq} ({Length} bytes)")]
public sealed class LoadedFile : IDisposable
{
    private FileContents? _contents;
    private int _disposed;

    internal LoadedFile(string path, int index, FileContents contents, long budgetCharge)
    {
        Path = path;
        Index = index;
        _contents = contents;
        Length = contents.Length;
        BudgetCharge = budgetCharge;
    }

    internal LoadedFile(string path, int index, byte[] buffer, int length, ArrayPool<byte> pool, long budgetCharge)
        : this(path, index, new PooledContents(buffer, length, pool), budgetCharge)
    {
    }

    internal LoadedFile(string path, int index, Exception error, long budgetCharge)
    {
        Path = path;
        Index = index;
        Error = error;
        BudgetCharge = budgetCharge;
    }

    /// <summary>Gets the path of the file, as the <see cref="FileSet"/> produced it.</summary>
    public string Path { get; }

    /// <summary>Gets the position of the file in its <see cref="FileSet"/>, counting from 0.</summary>
    public int Index { get; }

    /// <summary>
    /// Gets the number of bytes loaded: the file's length when it was opened, or less if it shrank while being read.
    /// A memory-mapped file (<see cref="FileLoaderOptions.UseMemoryMapping"/>) keeps its length at open: a mapping
    /// cannot see a later shrink, and touching the lost pages kills the process.
    /// </summary>
    /// <value>0 for a file that failed to load.</value>
    public long Length { get; }

    /// <summary>Gets the error that kept the file from loading, or <see langword="null"/> when it loaded.</summary>
    /// <remarks>Only seen with <see cref="LoadErrorHandling.Collect"/>; with <see cref="LoadErrorHandling.Throw"/> the load throws it instead.</remarks>
    public Exception? Error { get; }

    /// <summary>Gets a value indicating whether the file loaded (<see cref="Error"/> is <see langword="null"/>).</summary>
    public bool Succeeded => Error is null;

    /// <summary>Gets the contents of the file as one block of memory.</summary>
    /// <value>A view of exactly <see cref="Length"/> bytes over the file's buffer; valid until <see cref="Dispose"/>.</value>
    /// <exception cref="ObjectDisposedException">The file was disposed and its buffer returned.</exception>
    /// <exception cref="InvalidOperationException">
    /// The file failed to load (<see cref="Error"/> says why), or it is larger than one block of memory can hold
    /// (over 2 GiB): use <see cref="Sequence"/>.
    /// </exception>
    public ReadOnlyMemory<byte> Data => Contents.Memory;

    /// <summary>Gets the contents of the file as a sequence of blocks of at most 1 GiB; works for every size.</summary>
    /// <value>Exactly <see cref="Length"/> bytes; one block for files up to 1 GiB. Valid until <see cref="Dispose"/>.</value>
    /// <exception cref="ObjectDisposedException">The file was disposed and its buffer returned.</exception>
    /// <exception cref="InvalidOperationException">The file failed to load; <see cref="Error"/> says why.</exception>
    public ReadOnlySequence<byte> Sequence => Contents.Sequence;

    private FileContents Contents
    {
        get
        {
            if (Error is not null)
            {
                ThrowFailed();
            }

            FileContents? contents = _contents;
            ObjectDisposedException.ThrowIf(contents is null, this);
            return contents;
        }
    }

    /// <summary>What the loader charged against its memory budget for this file, released when it is handed over.</summary>
    internal long BudgetCharge { get; }

    /// <summary>Returns the buffer to the pool. Later calls do nothing.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        Interlocked.Exchange(ref _contents, null)?.Dispose();
    }

    /// <inheritdoc />
    public override string ToString() => Error is null ? $"{Path} ({Length} bytes)" : $"{Path} (failed: {Error.Message})";

    private void ThrowFailed() =>
        throw new InvalidOperationException($"'{Path}' did not load, so it has no data: {Error!.Message}", Error);
}
