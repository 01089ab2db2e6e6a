using System.Buffers.Binary;

namespace FastLoad.Packing;

/// <summary>The byte layout of a pack, version 2, and what differs in version 1 (docs/pack-format.md). All integers are little-endian.</summary>
internal static class PackFormat
{
    /// <summary>The version written: each block record holds the hash of the block's stored bytes.</summary>
    public const ushort Version = 2;

    /// <summary>The first version, still read: no block hashes, so each entry is checked against the hash of its contents.</summary>
    public const ushort VersionWithoutBlockHashes = 1;

    public const int HeaderSize = 16;

    public const int FooterSize = 32;

    public const int IndexHeaderSize = 24;

    public const int BlockRecordSize = 32;

    public const int BlockRecordSizeWithoutHash = 24;

    public const int EntryRecordSize = 32;

    public const byte CodecRaw = 0;

    public const byte CodecLz4 = 1;

    /// <summary>LZ4 cannot expand a byte to more than 255 (one length byte per 255 bytes of match); a block claiming more is a bomb.</summary>
    public const int MaxLz4Ratio = 255;

    /// <summary>"\x89FLPK\r\n\x1A": a high byte, the name, and line-ending bytes that a text-mode transfer would change (as PNG does).</summary>
    public static ReadOnlySpan<byte> HeaderMagic => [0x89, (byte)'F', (byte)'L', (byte)'P', (byte)'K', (byte)'\r', (byte)'\n', 0x1A];

    /// <summary>"FLPK-END": the footer's last bytes, so a truncated pack is told apart from a corrupt one.</summary>
    public static ReadOnlySpan<byte> FooterMagic => "FLPK-END"u8;

    public static void WriteHeader(Span<byte> destination)
    {
        HeaderMagic.CopyTo(destination);
        BinaryPrimitives.WriteUInt16LittleEndian(destination[8..], Version);
        BinaryPrimitives.WriteUInt16LittleEndian(destination[10..], 0);
        BinaryPrimitives.WriteUInt32LittleEndian(destination[12..], 0);
    }

    public static void WriteFooter(Span<byte> destination, long indexOffset, long indexLength, ulong indexHash)
    {
        BinaryPrimitives.WriteInt64LittleEndian(destination, indexOffset);
        BinaryPrimitives.WriteInt64LittleEndian(destination[8..], indexLength);
        BinaryPrimitives.WriteUInt64LittleEndian(destination[16..], indexHash);
        FooterMagic.CopyTo(destination[24..]);
    }
}

/// <summary>Where one data block lies in the pack, how it is stored, and the hash of its stored bytes (<see langword="null"/> in a version 1 pack).</summary>
internal readonly record struct PackBlock(long Offset, int StoredLength, int RawLength, byte Codec, ulong? StoredHash);
