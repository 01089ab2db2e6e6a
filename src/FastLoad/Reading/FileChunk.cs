using System.Buffers;
using System.Diagnostics;

namespace FastLoad;

/// <summary>One piece of a file streamed by <see cref="FileLoader.ReadChunksAsync(string, CancellationToken)"/>, in a pooled buffer.</summary>
/// <remarks>Dispose each chunk when done with it; its buffer goes back to the pool exactly once.</remarks>
[DebuggerDisplay("{Offset}+{Length}")]
public sealed class FileChunk : IDisposable
{
    private readonly ArrayPool<byte> _pool;
    private byte[]? _buffer;

    internal FileChunk(long offset, byte[] buffer, int length, ArrayPool<byte> pool)
    {
        Offset = offset;
        _buffer = buffer;
        Length = length;
        _pool = pool;
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
            byte[]? buffer = _buffer;
            ObjectDisposedException.ThrowIf(buffer is null, this);
            return new ReadOnlyMemory<byte>(buffer, 0, Length);
        }
    }

    /// <summary>Returns the buffer to the pool. Later calls do nothing.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _buffer, null) is { } buffer)
        {
            _pool.Return(buffer);
        }
    }
}
