using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace FastLoad.Packing;

/// <summary>
/// XXH64 (https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md), one shot: the content hash of a pack's
/// entries and index. Written here because no maintained hash package is available to the build.
/// </summary>
internal static class XxHash64
{
    private const ulong Prime1 = 11400714785074694791UL;
    private const ulong Prime2 = 14029467366897019727UL;
    private const ulong Prime3 = 1609587929392839161UL;
    private const ulong Prime4 = 9650029242287828579UL;
    private const ulong Prime5 = 2870177450012600261UL;

    public static ulong Hash(ReadOnlySpan<byte> data, ulong seed = 0)
    {
        ref byte start = ref MemoryMarshal.GetReference(data);
        int length = data.Length;
        int offset = 0;
        ulong hash;
        if (length >= 32)
        {
            ulong v1 = seed + Prime1 + Prime2;
            ulong v2 = seed + Prime2;
            ulong v3 = seed;
            ulong v4 = seed - Prime1;
            int limit = length - 32;
            do
            {
                v1 = Round(v1, Read64(ref start, offset));
                v2 = Round(v2, Read64(ref start, offset + 8));
                v3 = Round(v3, Read64(ref start, offset + 16));
                v4 = Round(v4, Read64(ref start, offset + 24));
                offset += 32;
            }
            while (offset <= limit);

            hash = BitOperations.RotateLeft(v1, 1) + BitOperations.RotateLeft(v2, 7) + BitOperations.RotateLeft(v3, 12) + BitOperations.RotateLeft(v4, 18);
            hash = MergeRound(hash, v1);
            hash = MergeRound(hash, v2);
            hash = MergeRound(hash, v3);
            hash = MergeRound(hash, v4);
        }
        else
        {
            hash = seed + Prime5;
        }

        hash += (ulong)length;
        while (length - offset >= 8)
        {
            hash ^= Round(0, Read64(ref start, offset));
            hash = (BitOperations.RotateLeft(hash, 27) * Prime1) + Prime4;
            offset += 8;
        }

        if (length - offset >= 4)
        {
            hash ^= BinaryPrimitives.ReadUInt32LittleEndian(data.Slice(offset, 4)) * Prime1;
            hash = (BitOperations.RotateLeft(hash, 23) * Prime2) + Prime3;
            offset += 4;
        }

        while (offset < length)
        {
            hash ^= Unsafe.Add(ref start, offset) * Prime5;
            hash = BitOperations.RotateLeft(hash, 11) * Prime1;
            offset++;
        }

        hash ^= hash >> 33;
        hash *= Prime2;
        hash ^= hash >> 29;
        hash *= Prime3;
        hash ^= hash >> 32;
        return hash;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Round(ulong accumulator, ulong input)
    {
        accumulator += input * Prime2;
        return BitOperations.RotateLeft(accumulator, 31) * Prime1;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong MergeRound(ulong accumulator, ulong value)
    {
        accumulator ^= Round(0, value);
        return (accumulator * Prime1) + Prime4;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Read64(ref byte start, int offset) =>
        BitConverter.IsLittleEndian
            ? Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref start, offset))
            : BinaryPrimitives.ReverseEndianness(Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref start, offset)));
}
