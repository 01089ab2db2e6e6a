using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace FastLoad.Packing.Lz4;

/// <summary>
/// The LZ4 block format (https://github.com/lz4/lz4/blob/dev/doc/lz4_Block_format.md): a greedy hash-table
/// compressor in the manner of <c>LZ4_compress_default</c>, and a decoder that checks every length against both
/// spans, so a malformed block can neither read nor write outside them. Blocks are interchangeable with liblz4's.
/// </summary>
internal static class Lz4Codec
{
    private const int MinMatch = 4;

    // The format's end rules: the last 5 bytes are literals, and the last match starts at least 12 bytes before the end.
    private const int LastLiterals = 5;
    private const int MatchFindLimit = 12;
    private const int MaxOffset = 65535;
    private const int HashLog = 12;
    private const int SkipTrigger = 6;

    /// <summary>The largest compressed size of <paramref name="inputLength"/> bytes: what <c>LZ4_compressBound</c> says.</summary>
    public static int MaximumOutputSize(int inputLength) => inputLength + (inputLength / 255) + 16;

    /// <summary>
    /// Compresses <paramref name="source"/> into <paramref name="destination"/>; acceleration 1 is the reference default,
    /// larger values search less. Returns the compressed length, or 0 when the result does not fit in <paramref name="destination"/>
    /// (so a destination the size of the worth-it limit stops an incompressible block early).
    /// </summary>
    public static int Encode(ReadOnlySpan<byte> source, Span<byte> destination, int acceleration = 1)
    {
        int[] table = t_table ??= new int[1 << HashLog];
        Array.Fill(table, -1);
        return EncodeCore(source, destination, Math.Max(1, acceleration), table);
    }

    [ThreadStatic]
    private static int[]? t_table;

    private static int EncodeCore(ReadOnlySpan<byte> source, Span<byte> destination, int acceleration, int[] table)
    {
        int length = source.Length;
        int op = 0;
        int anchor = 0;
        if (length >= MatchFindLimit + 1)
        {
            ref byte src = ref MemoryMarshal.GetReference(source);
            ref int hashes = ref MemoryMarshal.GetArrayDataReference(table);
            int matchLimit = length - LastLiterals;
            int lastMatchStart = length - MatchFindLimit;
            int ip = 0;
            Unsafe.Add(ref hashes, Hash(Read32(ref src, ip))) = ip;
            ip++;
            while (true)
            {
                // Find a match; after a run of misses, step further each time (as the reference does).
                int match;
                int searchCount = acceleration << SkipTrigger;
                while (true)
                {
                    if (ip > lastMatchStart)
                    {
                        goto LastLiteralsLabel;
                    }

                    uint sequence = Read32(ref src, ip);
                    ref int slot = ref Unsafe.Add(ref hashes, Hash(sequence));
                    match = slot;
                    slot = ip;
                    if (match >= 0 && ip - match <= MaxOffset && Read32(ref src, match) == sequence)
                    {
                        break;
                    }

                    ip += searchCount++ >> SkipTrigger;
                }

                // Extend backwards over equal bytes not yet emitted.
                while (ip > anchor && match > 0 && Unsafe.Add(ref src, ip - 1) == Unsafe.Add(ref src, match - 1))
                {
                    ip--;
                    match--;
                }

                int matchLength = MinMatch + Count(ref src, ip + MinMatch, match + MinMatch, matchLimit);
                int literalLength = ip - anchor;
                int needed = 1 + ExtraLengthBytes(literalLength) + literalLength + 2 + ExtraLengthBytes(matchLength - MinMatch);
                if (needed > destination.Length - op)
                {
                    return 0;
                }

                ref byte token = ref destination[op++];
                op = WriteLiterals(source.Slice(anchor, literalLength), destination, op, ref token);
                BinaryPrimitives.WriteUInt16LittleEndian(destination.Slice(op), (ushort)(ip - match));
                op += 2;
                int extra = matchLength - MinMatch;
                if (extra >= 15)
                {
                    token |= 15;
                    op = WriteLengthExtension(destination, op, extra - 15);
                }
                else
                {
                    token |= (byte)extra;
                }

                // Record a position inside the match so the next search sees recent data.
                int inside = ip + matchLength - 2;
                ip += matchLength;
                anchor = ip;
                if (ip > lastMatchStart)
                {
                    break;
                }

                Unsafe.Add(ref hashes, Hash(Read32(ref src, inside))) = inside;
            }
        }

    LastLiteralsLabel:
        int last = length - anchor;
        if (1 + ExtraLengthBytes(last) + last > destination.Length - op)
        {
            return 0;
        }

        ref byte lastToken = ref destination[op++];
        lastToken = 0;
        return WriteLiterals(source.Slice(anchor, last), destination, op, ref lastToken);
    }

    private static int WriteLiterals(ReadOnlySpan<byte> literals, Span<byte> destination, int op, ref byte token)
    {
        if (literals.Length >= 15)
        {
            token = 15 << 4;
            op = WriteLengthExtension(destination, op, literals.Length - 15);
        }
        else
        {
            token = (byte)(literals.Length << 4);
        }

        literals.CopyTo(destination.Slice(op));
        return op + literals.Length;
    }

    private static int WriteLengthExtension(Span<byte> destination, int op, int remaining)
    {
        while (remaining >= 255)
        {
            destination[op++] = 255;
            remaining -= 255;
        }

        destination[op++] = (byte)remaining;
        return op;
    }

    private static int ExtraLengthBytes(int length) => length >= 15 ? ((length - 15) / 255) + 1 : 0;

    /// <summary>Counts equal bytes at <paramref name="ip"/> and <paramref name="match"/>, up to <paramref name="limit"/> for <paramref name="ip"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int Count(ref byte src, int ip, int match, int limit)
    {
        int start = ip;
        while (ip <= limit - 8)
        {
            ulong difference = Read64(ref src, ip) ^ Read64(ref src, match);
            if (difference != 0)
            {
                return ip - start + (BitOperations.TrailingZeroCount(difference) >> 3);
            }

            ip += 8;
            match += 8;
        }

        while (ip < limit && Unsafe.Add(ref src, ip) == Unsafe.Add(ref src, match))
        {
            ip++;
            match++;
        }

        return ip - start;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int Hash(uint sequence) => (int)((sequence * 2654435761u) >> (32 - HashLog));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint Read32(ref byte source, int offset) =>
        BinaryPrimitives.ReadUInt32LittleEndian(MemoryMarshal.CreateReadOnlySpan(ref Unsafe.Add(ref source, offset), 4));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Read64(ref byte source, int offset) =>
        BinaryPrimitives.ReadUInt64LittleEndian(MemoryMarshal.CreateReadOnlySpan(ref Unsafe.Add(ref source, offset), 8));

    /// <summary>
    /// Decodes one block into <paramref name="destination"/>. Returns the decoded length, or -1 when the block is
    /// malformed: a length that runs past either span, an offset of 0 or before the start, or a missing byte.
    /// </summary>
    public static int Decode(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        ref byte src = ref MemoryMarshal.GetReference(source);
        ref byte dst = ref MemoryMarshal.GetReference(destination);
        int sourceLength = source.Length;
        int destinationLength = destination.Length;
        int ip = 0;
        int op = 0;
        while (true)
        {
            if (ip >= sourceLength)
            {
                return -1;
            }

            int token = Unsafe.Add(ref src, ip++);
            int literalLength = token >> 4;
            if (literalLength == 15 && !ReadLengthExtension(ref src, sourceLength, ref ip, ref literalLength))
            {
                return -1;
            }

            // Short literals: one 16-byte wild copy when both spans have room past them; the bytes past the
            // literals are overwritten by what follows or lie beyond the decoded length.
            if (literalLength <= 16 && sourceLength - ip >= 16 && destinationLength - op >= 16)
            {
                Unsafe.WriteUnaligned(ref Unsafe.Add(ref dst, op), Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref src, ip)));
                Unsafe.WriteUnaligned(ref Unsafe.Add(ref dst, op + 8), Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref src, ip + 8)));
            }
            else
            {
                if (literalLength > sourceLength - ip || literalLength > destinationLength - op)
                {
                    return -1;
                }

                Unsafe.CopyBlockUnaligned(ref Unsafe.Add(ref dst, op), ref Unsafe.Add(ref src, ip), (uint)literalLength);
            }

            ip += literalLength;
            op += literalLength;
            if (ip == sourceLength)
            {
                return op; // The last sequence has literals only.
            }

            if (sourceLength - ip < 2)
            {
                return -1;
            }

            int offset = Unsafe.Add(ref src, ip) | (Unsafe.Add(ref src, ip + 1) << 8);
            ip += 2;
            if (offset == 0 || offset > op)
            {
                return -1;
            }

            int matchLength = token & 15;
            if (matchLength == 15 && !ReadLengthExtension(ref src, sourceLength, ref ip, ref matchLength))
            {
                return -1;
            }

            matchLength += MinMatch;
            if (matchLength > destinationLength - op)
            {
                return -1;
            }

            CopyMatch(ref dst, op, offset, matchLength, destinationLength);
            op += matchLength;
        }
    }

    private static bool ReadLengthExtension(ref byte src, int sourceLength, ref int ip, ref int length)
    {
        int b;
        do
        {
            if (ip >= sourceLength)
            {
                return false;
            }

            b = Unsafe.Add(ref src, ip++);
            length += b;
            if (length > Array.MaxLength)
            {
                return false;
            }
        }
        while (b == 255);
        return true;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void CopyMatch(ref byte dst, int op, int offset, int length, int destinationLength)
    {
        int from = op - offset;
        int end = op + length;
        if (offset >= 8 && destinationLength - end >= 8)
        {
            // 8 bytes at a time: each chunk reads bytes at least 8 behind, so already final; the last chunk may run
            // up to 7 bytes past the match, which the check above keeps inside the destination (later sequences
            // overwrite them).
            do
            {
                Unsafe.WriteUnaligned(ref Unsafe.Add(ref dst, op), Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref dst, from)));
                op += 8;
                from += 8;
            }
            while (op < end);
            return;
        }

        while (op < end)
        {
            Unsafe.Add(ref dst, op++) = Unsafe.Add(ref dst, from++);
        }
    }
}
