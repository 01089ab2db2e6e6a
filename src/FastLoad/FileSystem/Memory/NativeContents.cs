using System.Buffers;
using System.Runtime.InteropServices;

namespace FastLoad.FileSystem;

/// <summary>
/// A file in native memory: aligned for unbuffered reads, or a read-only view of a memory mapping.
/// Exposed through <see cref="MemoryManager{T}"/>s of at most 1 GiB each.
/// </summary>
internal sealed unsafe class NativeContents : FileContents
{
    private readonly Owner? _owner;
    private readonly Action? _release;
    private readonly bool _block;
    private long _length;
    private ReadOnlyMemory<byte>? _memory;

    private NativeContents(byte* pointer, long length, Owner? owner, Action? release, bool block)
    {
        Pointer = pointer;
        _length = length;
        _owner = owner;
        _release = release;
        _block = block;
    }

    public byte* Pointer { get; }

    public override long Length => _length;

    // Made once: LoadedFile.Data and FileChunk.Data are read per use, and a MemoryManager is an allocation.
    public override ReadOnlyMemory<byte> Memory => _length <= Array.MaxLength
        ? _memory ??= new NativeMemoryManager(Pointer, (int)_length).Memory
        : throw new InvalidOperationException($"The file is {_length:N0} bytes, more than one block of memory can hold; use LoadedFile.Sequence.");

    public override ReadOnlySequence<byte> Sequence => _length <= SegmentedContents.SegmentSize
        ? new ReadOnlySequence<byte>(Memory)
        : MemorySegment.Chain(Blocks());

    /// <summary>Views of at most 1 GiB each, covering the contents in order.</summary>
    private List<ReadOnlyMemory<byte>> Blocks()
    {
        var blocks = new List<ReadOnlyMemory<byte>>();
        for (long start = 0; start < _length; start += SegmentedContents.SegmentSize)
        {
            blocks.Add(new NativeMemoryManager(Pointer + start, (int)Math.Min(SegmentedContents.SegmentSize, _length - start)).Memory);
        }

        return blocks;
    }

    /// <summary>
    /// Allocates <paramref name="capacity"/> bytes aligned to <paramref name="alignment"/> for unbuffered reads, freed
    /// (or pooled) on dispose.
    /// </summary>
    public static NativeContents AllocateAligned(long capacity, int alignment)
    {
        if (alignment <= NativeBlockPool.Alignment)
        {
            // Page-aligned, pooled like every other file buffer.
            return NativeBlockPool.Rent(capacity, forUnbufferedReads: true);
        }

        byte* pointer = (byte*)NativeMemory.AlignedAlloc((nuint)Math.Max(capacity, 1), (nuint)alignment);
        return Wrap(pointer, capacity, () => NativeMemory.AlignedFree(pointer));
    }

    /// <summary>Wraps memory someone else releases (a mapping), calling <paramref name="release"/> on dispose.</summary>
    public static NativeContents Wrap(byte* pointer, long length, Action release) => new(pointer, length, owner: null, release, block: false);

    /// <summary>A block of <see cref="NativeBlockPool"/>'s own that is not pooled per block, freed by <paramref name="release"/>.</summary>
    public static NativeContents Block(byte* block, long length, Action release) => new(block, length, owner: null, release, block: true);

    /// <summary>A block of <paramref name="owner"/>'s, given back to it on dispose (no delegate to allocate per file).</summary>
    public static NativeContents Rent(Owner owner, byte* block, long length) => new(block, length, owner, release: null, block: true);

    public override Span<byte> Slice(long offset, int length) => new(Pointer + offset, length);

    /// <summary>A block's pages in the range, mapped in one call (a large block is not populated whole when rented, so that its first read need not wait for all of it).</summary>
    public override void PrepareToFill(long offset, int length)
    {
        if (_block)
        {
            long start = offset & ~(NativeBlockPool.Alignment - 1L);
            NativeBlockPool.Populate(Pointer + start, NativeBlockPool.RoundUpToPage(offset + length) - start);
        }
    }

    // Native memory never moves: the handle pins nothing, and costs no allocation.
    public override MemoryHandle Pin() => new(Pointer);

    public override void Truncate(long length)
    {
        _length = Math.Min(_length, length);
        _memory = null;
    }

    public override void Dispose()
    {
        if (_owner is not null)
        {
            _owner.Return(Pointer);
        }
        else
        {
            _release!();
        }
    }

    /// <summary>Where pooled blocks come from and go back to.</summary>
    public abstract class Owner
    {
        /// <summary>Takes back <paramref name="block"/>, which a <see cref="NativeContents"/> held.</summary>
        public abstract void Return(byte* block);
    }

    private sealed class NativeMemoryManager(byte* pointer, int length) : MemoryManager<byte>
    {
        public override Span<byte> GetSpan() => new(pointer, length);

        public override MemoryHandle Pin(int elementIndex = 0) => new(pointer + elementIndex);

        public override void Unpin()
        {
        }

        protected override void Dispose(bool disposing)
        {
            // The memory belongs to the NativeContents.
        }
    }
}
