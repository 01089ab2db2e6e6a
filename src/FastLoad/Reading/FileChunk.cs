using System.Buffers;
using System.Diagnostics;

namespace FastLoad;

/// <summary>One piece of a file streamed by <see cref="FileLoader.ReadChunksAsync(string, CancellationToken)"/>, in a pooled buffer.</summary>
/// <remarks>Dispose each chunk when done with it; its buffer goes back to the pool exactly once.</remarks>
[DebuggerDisplay("{Offset}+{Length}")]
public sealed class FileChunk : IDisposable
{
    private readonly ArrayPool<byte>? _pool;

    // A byte[] rented from _pool, or native memory (unbuffered reads need aligned buffers); null once disposed.
    private object? _owner;

    internal FileChunk(long offset, byte[] buffer, int length, ArrayPool<byte> pool)
    {
        Offset = offset;
        _owner = buffer;
        Length = length;
        _pool = pool;
    }

    internal FileChunk(long offset, Reading.FileContents contents, int length)
    {
        Offset = offset;
        _owner = contents;
        Length = length;
    }

    /// <summary>Gets the position of the chunk's first byte in the file.</summary>
    public long Offset { get; }

    /// <summary>Gets the number of bytes in the chunk: the chunk size, less for the last chunk.</summary>
    public int Length { get; }

    /// <summary>Gets the chunk's bytes.</summary>
    /// <exception cref="ObjectDisposedException">The chunk was disposed and its buffer returned to the pool.</exception>
    public ReadOnlyMemory<byte> Data
    {
        get
        {
            object? owner = Volatile.Read(ref _owner);
            ObjectDisposedException.ThrowIf(owner is null, this);
            return owner is byte[] buffer ? new ReadOnlyMemory<byte>(buffer, 0, Length) : ((Reading.FileContents)owner).Memory[..Length];
        }
    }

    /// <summary>Returns the buffer to the pool. Later calls do nothing.</summary>
    public void Dispose()
    {
        switch (Interlocked.Exchange(ref _owner, null))
        {
            case byte[] buffer:
                _pool!.Return(buffer);
                break;
            case Reading.FileContents contents:
                contents.Dispose();
                break;
        }
    }
}
