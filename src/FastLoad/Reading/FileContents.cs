using System.Buffers;

namespace FastLoad.Reading;

/// <summary>Owns the memory of one loaded file: a pooled array, pooled segments (over 2 GiB), aligned native memory, or a mapping.</summary>
internal abstract class FileContents : IDisposable
{
    /// <summary>Bytes of content.</summary>
    public abstract long Length { get; }

    /// <summary>The contents as one block; only for files of at most <see cref="Array.MaxLength"/> bytes.</summary>
    public abstract ReadOnlyMemory<byte> Memory { get; }

    /// <summary>The contents as a sequence of blocks of at most 1 GiB.</summary>
    public virtual ReadOnlySequence<byte> Sequence => new(Memory);

    /// <summary>Releases the memory; called exactly once by the owning <see cref="LoadedFile"/>.</summary>
    public abstract void Dispose();
}

/// <summary>A file in one pooled array.</summary>
internal sealed class PooledContents(byte[] array, int length, ArrayPool<byte> pool) : FileContents
{
    public override long Length => length;

    public override ReadOnlyMemory<byte> Memory => new(array, 0, length);

    public override void Dispose() => pool.Return(array);
}
