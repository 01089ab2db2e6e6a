using FastLoad.FileSystem;

namespace FastLoad.Packing;

/// <summary>
/// An entry of a whole-pack load that lies in one block: a view of the decoded block, holding one reference to it until
/// disposed, so that the block's buffer goes back to the pool once every entry in it is disposed.
/// </summary>
internal sealed class PackBlockSlice : FileContents
{
    private readonly DecodedBlock _block;
    private readonly int _offset;
    private int _length;

    /// <summary>Takes a reference to <paramref name="block"/>, released by <see cref="Dispose"/>.</summary>
    public PackBlockSlice(DecodedBlock block, int offset, int length)
    {
        block.AddReference();
        _block = block;
        _offset = offset;
        _length = length;
    }

    public override long Length => _length;

    public override ReadOnlyMemory<byte> Memory => new(_block.Raw, _offset, _length);

    public override Span<byte> Slice(long offset, int length) => _block.Raw.AsSpan(_offset + checked((int)offset), length);

    public override void Truncate(long length) => _length = (int)Math.Min(_length, length);

    public override void Dispose() => _block.Release();
}
