using System.Buffers.Binary;
using System.Numerics;

namespace FastLoad.Prefetch;

/// <summary>
/// CRC-32C (Castagnoli) of a manifest, the checksum storage formats use to catch torn writes and flipped bits. From
/// <see cref="BitOperations.Crc32C(uint, ulong)"/>, which the runtime ships precompiled (and on x64 and arm64 as one
/// instruction), so that checking a manifest at the top of <c>Main</c> compiles nothing.
/// </summary>
internal static class ManifestChecksum
{
    public static uint Compute(ReadOnlySpan<byte> bytes)
    {
        uint crc = uint.MaxValue;
        int at = 0;
        for (; at + sizeof(ulong) <= bytes.Length; at += sizeof(ulong))
        {
            crc = BitOperations.Crc32C(crc, BinaryPrimitives.ReadUInt64LittleEndian(bytes[at..]));
        }

        for (; at < bytes.Length; at++)
        {
            crc = BitOperations.Crc32C(crc, bytes[at]);
        }

        return ~crc;
    }
}
