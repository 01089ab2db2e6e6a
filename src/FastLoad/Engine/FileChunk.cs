using System.Diagnostics;
using FastLoad.FileSystem;

namespace FastLoad;

/// <summary>One piece of a file streamed by <c>FileLoader.ReadChunksAsync</c>, in a pooled buffer.</summary>
/// <remarks>Dispose each chunk when done with it; its buffer goes back to the pool exactly once.</remarks>
[DebuggerDisplay("{Offset}+{Length}")]
public sealed class FileChunk : IDisposable
{
    private FileContents? _contents;

    internal FileChunk(long offset, FileContents contents)
    {
        Offset = offset;
        Length = (int)contents.Length;
        _contents = contents;
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
            FileContents? contents = Volatile.Read(ref _contents);
            ObjectDisposedException.ThrowIf(contents is null, this);
            return contents.Memory;
        }
    }

    /// <summary>Returns the buffer to the pool. Later calls do nothing.</summary>
    public void Dispose() => Interlocked.Exchange(ref _contents, null)?.Dispose();
}
