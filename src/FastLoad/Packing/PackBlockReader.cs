using System.Buffers;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Packing;

/// <summary>
/// Reads one block of a pack, checks its stored bytes against their hash (a pack of version 2 on), and decodes it into
/// memory of its raw length. Every read of a block goes through here, so a changed byte is caught before the decoder
/// sees it, whichever entry, and whatever part of it, is being read.
/// </summary>
internal static class PackBlockReader
{
    /// <summary>Returns the block's raw bytes in a buffer rented from <paramref name="pool"/>; the caller returns it.</summary>
    public static byte[] ReadAndDecode(SafeFileHandle handle, string packPath, PackBlock block, int blockIndex, ArrayPool<byte> pool)
    {
        byte[] decoded = pool.Rent(block.RawLength);
        try
        {
            ReadAndDecode(handle, packPath, block, blockIndex, pool, decoded.AsSpan(0, block.RawLength));
            return decoded;
        }
        catch
        {
            pool.Return(decoded);
            throw;
        }
    }

    /// <summary>
    /// Fills <paramref name="destination"/> (the block's raw length) with its raw bytes: a raw block is read straight
    /// into it, an LZ4 block through a buffer rented from <paramref name="pool"/>.
    /// </summary>
    public static void ReadAndDecode(SafeFileHandle handle, string packPath, PackBlock block, int blockIndex, ArrayPool<byte> pool, Span<byte> destination)
    {
        if (block.Codec == PackFormat.CodecRaw)
        {
            PackIo.ReadExactly(handle, destination, block.Offset, packPath); // The index checked stored == raw.
            CheckStoredHash(destination, packPath, block, blockIndex);
            return;
        }

        byte[] stored = pool.Rent(block.StoredLength);
        try
        {
            PackIo.ReadExactly(handle, stored.AsSpan(0, block.StoredLength), block.Offset, packPath);
            CheckStoredHash(stored.AsSpan(0, block.StoredLength), packPath, block, blockIndex);
            int length = Lz4BlockDecoder.Decode(stored.AsSpan(0, block.StoredLength), destination);
            if (length != block.RawLength)
            {
                throw PackErrors.Corrupt(
                    packPath,
                    block.Offset,
                    $"block {blockIndex} does not decode to its {block.RawLength} bytes ({(length < 0 ? "malformed LZ4" : $"{length} bytes")})");
            }
        }
        finally
        {
            pool.Return(stored);
        }
    }

    private static void CheckStoredHash(ReadOnlySpan<byte> stored, string packPath, PackBlock block, int blockIndex)
    {
        if (block.StoredHash is { } expected && PackHash.Hash(stored) != expected)
        {
            throw PackErrors.Corrupt(packPath, block.Offset, $"block {blockIndex} does not match its hash: its {block.StoredLength} stored bytes changed since the pack was written");
        }
    }
}
