using System.Buffers.Binary;
using System.IO.Hashing;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace FastLoad.Packing;

/// <summary>The content hash of a pack's entries and index: XXH64 with seed 0.</summary>
/// <remarks>
/// <see cref="Hash"/> is XXH64 written out here rather than System.IO.Hashing's, which gives the same values
/// (PackHashTests): that package's code runs a call per 8 bytes under NativeAOT and ships IL only, so under the JIT it
/// needed a method compiled at run time to run optimized. This loop is plain code, precompiled with FastLoad.dll
/// (ReadyToRun) or the application (NativeAOT), and optimized from its first call (docs/pack-performance.md).
/// </remarks>
internal static class PackHash
{
    private const ulong Prime1 = 0x9E3779B185EBCA87UL;
    private const ulong Prime2 = 0xC2B2AE3D27D4EB4FUL;
    private const ulong Prime3 = 0x165667B19E3779F9UL;
    private const ulong Prime4 = 0x85EBCA77C2B2AE63UL;
    private const ulong Prime5 = 0x27D4EB2F165667C5UL;

    /// <summary>Returns the XXH64 (seed 0) of <paramref name="data"/>.</summary>
    public static ulong Hash(ReadOnlySpan<byte> data)
    {
        ref byte start = ref MemoryMarshal.GetReference(data);
        int length = data.Length;
        int at = 0;
        ulong hash;
        if (length >= 32)
        {
            ulong v1 = unchecked(Prime1 + Prime2);
            ulong v2 = Prime2;
            ulong v3 = 0;
            ulong v4 = unchecked(0UL - Prime1);
            for (int end = length - 32; at <= end; at += 32)
            {
                v1 = Round(v1, Read64(ref start, at));
                v2 = Round(v2, Read64(ref start, at + 8));
                v3 = Round(v3, Read64(ref start, at + 16));
                v4 = Round(v4, Read64(ref start, at + 24));
            }

            hash = BitOperations.RotateLeft(v1, 1) + BitOperations.RotateLeft(v2, 7) + BitOperations.RotateLeft(v3, 12)
                + BitOperations.RotateLeft(v4, 18);
            hash = MergeRound(hash, v1);
            hash = MergeRound(hash, v2);
            hash = MergeRound(hash, v3);
            hash = MergeRound(hash, v4);
        }
        else
        {
            hash = Prime5;
        }

        hash += (ulong)length;
        for (; at <= length - 8; at += 8)
        {
            hash ^= Round(0, Read64(ref start, at));
            hash = (BitOperations.RotateLeft(hash, 27) * Prime1) + Prime4;
        }

        if (at <= length - 4)
        {
            hash ^= Read32(ref start, at) * Prime1;
            hash = (BitOperations.RotateLeft(hash, 23) * Prime2) + Prime3;
            at += 4;
        }

        for (; at < length; at++)
        {
            hash ^= Unsafe.Add(ref start, at) * Prime5;
            hash = BitOperations.RotateLeft(hash, 11) * Prime1;
        }

        hash ^= hash >> 33;
        hash *= Prime2;
        hash ^= hash >> 29;
        hash *= Prime3;
        hash ^= hash >> 32;
        return hash;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Round(ulong accumulator, ulong lane) => BitOperations.RotateLeft(accumulator + (lane * Prime2), 31) * Prime1;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong MergeRound(ulong hash, ulong accumulator) => ((hash ^ Round(0, accumulator)) * Prime1) + Prime4;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Read64(ref byte start, int at)
    {
        ulong value = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref start, at));
        return BitConverter.IsLittleEndian ? value : BinaryPrimitives.ReverseEndianness(value);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Read32(ref byte start, int at)
    {
        uint value = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref start, at));
        return BitConverter.IsLittleEndian ? value : BinaryPrimitives.ReverseEndianness(value);
    }

    /// <summary>The XXH64 (seed 0) of bytes given in pieces, as a stream reads an entry.</summary>
    /// <remarks>
    /// System.IO.Hashing's streaming hash, through a method the JIT compiles fully optimized at its first call with the
    /// package's loop inlined; <see cref="MethodImplOptions.NoInlining"/> keeps precompiled callers from folding it in.
    /// </remarks>
    internal sealed class Incremental
    {
        private readonly XxHash64 _hash = new();

        /// <summary>Adds the next piece.</summary>
        [MethodImpl(MethodImplOptions.AggressiveOptimization | MethodImplOptions.NoInlining)]
        public void Append(ReadOnlySpan<byte> data) => _hash.Append(data);

        /// <summary>Returns the hash of every piece so far.</summary>
        public ulong Complete() => _hash.GetCurrentHashAsUInt64();
    }
}
