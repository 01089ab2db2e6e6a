using System.Buffers;

namespace FastLoad.FileSystem;

/// <summary>A file too large for one array (over 2 GiB): pooled segments of <see cref="SegmentSize"/> bytes, exposed as a sequence.</summary>
internal sealed class SegmentedContents : FileContents
{
    /// <summary>1 GiB: a power of two, so that chunks of any power-of-two size never straddle two segments.</summary>
    internal const int SegmentShift = 30;
    internal const int SegmentSize = 1 << SegmentShift;

    private readonly byte[][] _segments;
    private readonly ArrayPool<byte> _pool;
    private long _length;

    public SegmentedContents(long capacity, ArrayPool<byte> pool)
    {
        _pool = pool;
        int count = (int)((capacity + SegmentSize - 1) >> SegmentShift);
        _segments = new byte[count][];
        try
        {
            for (int i = 0; i < count; i++)
            {
                _segments[i] = pool.Rent((int)Math.Min(SegmentSize, capacity - ((long)i << SegmentShift)));
            }
        }
        catch
        {
            Dispose();
            throw;
        }

        _length = capacity;
    }

    public override long Length => _length;

    public override ReadOnlyMemory<byte> Memory => throw new InvalidOperationException(
        $"The file is {_length:N0} bytes, more than one block of memory can hold; use LoadedFile.Sequence.");

    public override ReadOnlySequence<byte> Sequence => MemorySegment.Chain(
        Enumerable.Range(0, _segments.Length)
            .Select(i => (Start: (long)i << SegmentShift, Array: _segments[i]))
            .Where(segment => segment.Start < _length)
            .Select(segment => new ReadOnlyMemory<byte>(segment.Array, 0, (int)Math.Min(SegmentSize, _length - segment.Start))));

    /// <summary>The span of <paramref name="length"/> bytes at <paramref name="offset"/>; never crosses a segment.</summary>
    public override Span<byte> Slice(long offset, int length) =>
        _segments[offset >> SegmentShift].AsSpan((int)(offset & (SegmentSize - 1)), length);

    /// <summary>Shrinks the contents to what was actually read.</summary>
    public override void Truncate(long length) => _length = Math.Min(_length, length);

    public override void Dispose()
    {
        foreach (byte[]? segment in _segments)
        {
            if (segment is not null)
            {
                _pool.Return(segment);
            }
        }
    }
}

/// <summary>A link of a <see cref="ReadOnlySequence{T}"/>.</summary>
internal sealed class MemorySegment : ReadOnlySequenceSegment<byte>
{
    public MemorySegment(ReadOnlyMemory<byte> memory, long runningIndex)
    {
        Memory = memory;
        RunningIndex = runningIndex;
    }

    /// <summary>One sequence over <paramref name="blocks"/>, in order.</summary>
    public static ReadOnlySequence<byte> Chain(IEnumerable<ReadOnlyMemory<byte>> blocks)
    {
        MemorySegment? first = null;
        MemorySegment? last = null;
        foreach (ReadOnlyMemory<byte> block in blocks)
        {
            last = last is null ? first = new MemorySegment(block, 0) : last.Append(block);
        }

        return first is null ? ReadOnlySequence<byte>.Empty : new ReadOnlySequence<byte>(first, 0, last!, last!.Memory.Length);
    }

    public MemorySegment Append(ReadOnlyMemory<byte> memory)
    {
        var next = new MemorySegment(memory, RunningIndex + Memory.Length);
        Next = next;
        return next;
    }
}
