using System.Runtime.CompilerServices;

namespace FastLoad.Packing;

/// <summary>
/// Decodes one block in the LZ4 block format, as liblz4's <c>LZ4_decompress_safe</c> and K4os's <c>LZ4Codec.Decode</c> do:
/// the bytes written, or -1 for a block that is malformed or does not fit the destination. It never reads outside the
/// source or writes outside the destination, whatever the source holds.
/// </summary>
/// <remarks>
/// Written here rather than called in K4os.Compression.LZ4 (which the writer still encodes with) because that package
/// ships IL only: in a new JIT process its decoder was compiled at run time and ran unoptimized through the first
/// blocks, where this code is precompiled with FastLoad.dll (ReadyToRun) and runs optimized from its first call.
/// Copies run 16 bytes at a time while both ends have room for it, and byte by byte only within 16 bytes of them.
/// </remarks>
internal static class Lz4BlockDecoder
{
    private const int MinMatch = 4;

    private const int WildCopy = 16;

    /// <summary>Decodes <paramref name="source"/> into <paramref name="destination"/>.</summary>
    /// <returns>How many bytes were written, or -1 when <paramref name="source"/> is not a whole LZ4 block that fits.</returns>
    public static unsafe int Decode(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        if (source.IsEmpty)
        {
            return -1;
        }

        fixed (byte* sourceStart = source)
        fixed (byte* destinationStart = destination)
        {
            byte* input = sourceStart;
            byte* inputEnd = sourceStart + source.Length;
            byte* output = destinationStart;
            byte* outputEnd = destinationStart + destination.Length;
            while (true)
            {
                uint token = *input++;

                // Most sequences hold at most 14 literals and a match of at most 18 bytes from at least 8 back: with room
                // for 32 bytes at both ends, they are copied in fixed sizes, without a length to read or a loop.
                if (token < 0xF0 && (token & 15) != 15 && inputEnd - input >= 32 && outputEnd - output >= 32)
                {
                    nuint shortLiterals = token >> 4;
                    Unsafe.CopyBlockUnaligned(output, input, 16);
                    input += shortLiterals;
                    output += shortLiterals;
                    nuint shortOffset = (nuint)(input[0] | (input[1] << 8));
                    if (shortOffset >= 8 && shortOffset <= (nuint)(output - destinationStart))
                    {
                        input += 2;
                        byte* shortMatch = output - shortOffset;
                        Unsafe.WriteUnaligned(output, Unsafe.ReadUnaligned<ulong>(shortMatch));
                        Unsafe.WriteUnaligned(output + 8, Unsafe.ReadUnaligned<ulong>(shortMatch + 8));
                        Unsafe.WriteUnaligned(output + 16, Unsafe.ReadUnaligned<ushort>(shortMatch + 16));
                        output += (token & 15) + MinMatch;
                        continue;
                    }

                    // A short match from nearer than 8 bytes back (or a malformed one): the literals are copied.
                    token &= 15;
                }

                nuint literalLength = token >> 4;
                if (literalLength == 15 && !TryReadLength(ref input, inputEnd, ref literalLength))
                {
                    return -1;
                }

                if (literalLength > (nuint)(inputEnd - input) || literalLength > (nuint)(outputEnd - output))
                {
                    return -1;
                }

                if ((nuint)(inputEnd - input) >= literalLength + WildCopy && (nuint)(outputEnd - output) >= literalLength + WildCopy)
                {
                    CopyWild(output, input, output + literalLength);
                }
                else
                {
                    Buffer.MemoryCopy(input, output, literalLength, literalLength);
                }

                input += literalLength;
                output += literalLength;
                if (input == inputEnd)
                {
                    // The last sequence holds literals only.
                    return (int)(output - destinationStart);
                }

                if (inputEnd - input < 2)
                {
                    return -1;
                }

                nuint offset = (nuint)(input[0] | (input[1] << 8));
                input += 2;
                if (offset == 0 || offset > (nuint)(output - destinationStart))
                {
                    return -1;
                }

                nuint matchLength = token & 15;
                if (matchLength == 15 && !TryReadLength(ref input, inputEnd, ref matchLength))
                {
                    return -1;
                }

                matchLength += MinMatch;
                // A match is never the block's last sequence.
                if (matchLength > (nuint)(outputEnd - output) || input == inputEnd)
                {
                    return -1;
                }

                byte* match = output - offset;
                byte* matchEnd = output + matchLength;
                if (offset >= WildCopy && (nuint)(outputEnd - matchEnd) >= WildCopy)
                {
                    // Each 16 bytes read lie wholly before the 16 written with them, so the copy repeats as LZ4 means it to.
                    CopyWild(output, match, matchEnd);
                }
                else
                {
                    CopyOverlapping(output, match, matchEnd);
                }

                output = matchEnd;
            }
        }
    }

    /// <summary>Adds the bytes of a length past its token's 15: each byte, until one below 255.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static unsafe bool TryReadLength(ref byte* input, byte* inputEnd, ref nuint length)
    {
        uint next;
        do
        {
            if (input == inputEnd)
            {
                return false;
            }

            next = *input++;
            length += next;
        }
        while (next == 255);

        // A length past what any block can hold is malformed (and would wrap the pointer arithmetic on 32 bits).
        return length <= int.MaxValue;
    }

    /// <summary>Copies 16 bytes at a time from <paramref name="source"/> until <paramref name="end"/> is reached, writing up to 15 bytes past it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static unsafe void CopyWild(byte* destination, byte* source, byte* end)
    {
        do
        {
            Unsafe.CopyBlockUnaligned(destination, source, WildCopy);
            destination += WildCopy;
            source += WildCopy;
        }
        while (destination < end);
    }

    /// <summary>Copies a match that starts within 16 bytes of where it is written, or ends near the destination's end, exactly.</summary>
    private static unsafe void CopyOverlapping(byte* destination, byte* source, byte* end)
    {
        nint distance = (nint)(destination - source);
        if (distance < 8)
        {
            // The bytes repeat every `distance`, so also every multiple of it: once the first multiple of at least 8 is
            // written byte by byte, the rest can be copied 8 at a time from that far back.
            nint repeat = distance * ((8 + distance - 1) / distance);
            byte* bytewiseEnd = destination + Math.Min(repeat, (nint)(end - destination));
            while (destination < bytewiseEnd)
            {
                *destination++ = *source++;
            }

            source = destination - repeat;
        }

        for (; end - destination >= 8; destination += 8, source += 8)
        {
            Unsafe.WriteUnaligned(destination, Unsafe.ReadUnaligned<ulong>(source));
        }

        while (destination < end)
        {
            *destination++ = *source++;
        }
    }
}
