using System.Buffers;

namespace FastLoad.FileSystem;

/// <summary>Owns the memory of one loaded file: a pooled array, pooled segments (over 2 GiB), aligned native memory, or a mapping.</summary>
internal abstract class FileContents : IDisposable
{
    /// <summary>Bytes of content.</summary>
    public abstract long Length { get; }

    /// <summary>The contents as one block; only for files of at most <see cref="Array.MaxLength"/> bytes.</summary>
    public abstract ReadOnlyMemory<byte> Memory { get; }

    /// <summary>The contents as a sequence of blocks of at most 1 GiB.</summary>
    public virtual ReadOnlySequence<byte> Sequence => new(Memory);

    /// <summary>Where a reader puts <paramref name="length"/> bytes from <paramref name="offset"/>; never crosses a block.</summary>
    public abstract Span<byte> Slice(long offset, int length);

    /// <summary>Shortens the contents to what a reader found (a file that shrank while read).</summary>
    public abstract void Truncate(long length);

    /// <summary>
    /// Maps the memory of the range a read is about to fill, where it may be fresh, in one call: a fresh page faults in
    /// at the kernel's copy one at a time otherwise. Nothing for memory that is mapped already (arrays, slabs).
    /// </summary>
    public virtual void PrepareToFill(long offset, int length)
    {
    }

    /// <summary>Keeps the buffer where it is while the kernel writes into it; only for contents of one block.</summary>
    public virtual MemoryHandle Pin() => throw new NotSupportedException($"{GetType().Name} is not read in one block.");

    /// <summary>Releases the memory; called exactly once, by the loaded file or chunk that owns it.</summary>
    public abstract void Dispose();
}

/// <summary>A file in one pooled array.</summary>
internal sealed class PooledContents(byte[] array, int length, ArrayPool<byte> pool) : FileContents
{
    private int _length = length;

    public override long Length => _length;

    public override ReadOnlyMemory<byte> Memory => new(array, 0, _length);

    public override Span<byte> Slice(long offset, int length) => array.AsSpan((int)offset, length);

    public override void Truncate(long length) => _length = (int)Math.Min(_length, length);

    public override MemoryHandle Pin() => new Memory<byte>(array).Pin();

    public override void Dispose() => pool.Return(array);
}

/// <summary>A file with no bytes: nothing is rented or returned, so one instance serves every such file.</summary>
internal sealed class EmptyContents : FileContents
{
    private EmptyContents()
    {
    }

    public static EmptyContents Instance { get; } = new();

    public override long Length => 0;

    public override ReadOnlyMemory<byte> Memory => ReadOnlyMemory<byte>.Empty;

    public override Span<byte> Slice(long offset, int length) =>
        offset == 0 && length == 0 ? Span<byte>.Empty : throw new ArgumentOutOfRangeException(nameof(length), "An empty file has no bytes to read into.");

    public override void Truncate(long length)
    {
    }

    public override MemoryHandle Pin() => default;

    public override void Dispose()
    {
    }
}
