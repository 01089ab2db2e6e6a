using System.Buffers;
using FastLoad.Packing.Lz4;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Packing;

/// <summary>Reads one block of a pack and decodes it into a pooled buffer of its raw length.</summary>
internal static class PackBlockReader
{
    /// <summary>Returns the block's raw bytes in a buffer rented from <paramref name="pool"/>; the caller returns it.</summary>
    public static byte[] ReadAndDecode(SafeFileHandle handle, string packPath, PackBlock block, int blockIndex, ArrayPool<byte> pool)
    {
        byte[] stored = pool.Rent(block.StoredLength);
        try
        {
            PackIo.ReadExactly(handle, stored.AsSpan(0, block.StoredLength), block.Offset, packPath);
            if (block.Codec == PackFormat.CodecRaw)
            {
                byte[] raw = stored;
                stored = null!;
                return raw;
            }

            byte[] decoded = pool.Rent(block.RawLength);
            int length = Lz4Codec.Decode(stored.AsSpan(0, block.StoredLength), decoded.AsSpan(0, block.RawLength));
            if (length != block.RawLength)
            {
                pool.Return(decoded);
                throw PackErrors.Corrupt(packPath, block.Offset, $"block {blockIndex} does not decode to its {block.RawLength} bytes ({(length < 0 ? "malformed LZ4" : $"{length} bytes")})");
            }

            return decoded;
        }
        finally
        {
            if (stored is not null)
            {
                pool.Return(stored);
            }
        }
    }
}
