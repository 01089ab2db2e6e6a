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
/// Most of a block is decoded where both ends have room to spare (<see cref="InputMargin"/>, <see cref="OutputMargin"/>):
/// there copies run in fixed sizes of 16 and 32 bytes, past the end of what they copy. The last bytes are decoded
/// exactly, with every length checked.
/// </remarks>
internal static class Lz4BlockDecoder
{
    private const int MinMatch = 4;

    // A sequence that starts this far from both ends can copy its literals (up to 14) and its match (up to 18) in
    // fixed sizes, and a longer run 32 bytes at a time, without passing either end.
    private const int InputMargin = 32;
    private const int OutputMargin = 64;

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

            // Computed from the lengths: an empty destination is a null pointer, which must not wrap below zero.
            byte* inputFastEnd = source.Length > InputMargin ? inputEnd - InputMargin : sourceStart;
            byte* outputFastEnd = destination.Length > OutputMargin ? outputEnd - OutputMargin : destinationStart;
            while (input < inputFastEnd && output < outputFastEnd)
            {
                byte* sequence = input;
                uint token = *input++;
                nuint literalLength = token >> 4;
                if (literalLength < 15)
                {
                    Unsafe.CopyBlockUnaligned(output, input, 16);
                    input += literalLength;
                    output += literalLength;
                }
                else
                {
                    LengthRead literals = ReadLength(input, inputEnd, literalLength);
                    if (literals.Next == null)
                    {
                        return -1;
                    }

                    input = literals.Next;
                    literalLength = literals.Length;

                    // Near either end (the block's last literals, or a malformed length), the exact loop below decodes
                    // the sequence again from its token. A length is at most int.MaxValue: adding the margin cannot wrap.
                    if (literalLength + InputMargin > (nuint)(inputEnd - input) || literalLength + InputMargin > (nuint)(outputEnd - output))
                    {
                        input = sequence;
                        break;
                    }

                    CopyWild32(output, input, output + literalLength);
                    input += literalLength;
                    output += literalLength;
                }

                nuint offset = (nuint)(input[0] | (input[1] << 8));
                input += 2;
                if (offset == 0 || offset > (nuint)(output - destinationStart))
                {
                    return -1;
                }

                byte* match = output - offset;
                nuint matchLength = token & 15;
                if (matchLength < 15)
                {
                    // At most 18 bytes, and at least 32 to spare at the output's end.
                    matchLength += MinMatch;
                    if (offset >= 8)
                    {
                        // Each 8 bytes read lie wholly before the 8 written with them.
                        Unsafe.WriteUnaligned(output, Unsafe.ReadUnaligned<ulong>(match));
                        Unsafe.WriteUnaligned(output + 8, Unsafe.ReadUnaligned<ulong>(match + 8));
                        Unsafe.WriteUnaligned(output + 16, Unsafe.ReadUnaligned<ushort>(match + 16));
                    }
                    else
                    {
                        CopyOverlapping(output, match, output + matchLength);
                    }

                    output += matchLength;
                    continue;
                }

                LengthRead longMatch = ReadLength(input, inputEnd, matchLength);
                if (longMatch.Next == null)
                {
                    return -1;
                }

                input = longMatch.Next;
                matchLength = longMatch.Length + MinMatch;
                if (matchLength > (nuint)(outputEnd - output))
                {
                    return -1;
                }

                byte* matchEnd = output + matchLength;
                if (offset >= 16 && (nuint)(outputEnd - matchEnd) >= 32)
                {
                    // Each 16 bytes read lie wholly before the 16 written with them, so the copy repeats as LZ4 means it to.
                    CopyWild32(output, match, matchEnd);
                }
                else
                {
                    CopyOverlapping(output, match, matchEnd);
                }

                output = matchEnd;
            }

            return DecodeExactly(input, inputEnd, output, outputEnd, destinationStart);
        }
    }

    /// <summary>Decodes the sequences from <paramref name="input"/> to the block's end, every copy exactly as long as it is.</summary>
    private static unsafe int DecodeExactly(byte* input, byte* inputEnd, byte* output, byte* outputEnd, byte* destinationStart)
    {
        while (true)
        {
            // A block ends with a sequence of literals alone, never after a match.
            if (input >= inputEnd)
            {
                return -1;
            }

            uint token = *input++;
            nuint literalLength = token >> 4;
            if (literalLength == 15)
            {
                LengthRead literals = ReadLength(input, inputEnd, literalLength);
                if (literals.Next == null)
                {
                    return -1;
                }

                input = literals.Next;
                literalLength = literals.Length;
            }

            if (literalLength > (nuint)(inputEnd - input) || literalLength > (nuint)(outputEnd - output))
            {
                return -1;
            }

            Buffer.MemoryCopy(input, output, literalLength, literalLength);
            input += literalLength;
            output += literalLength;
            if (input == inputEnd)
            {
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
            if (matchLength == 15)
            {
                LengthRead longMatch = ReadLength(input, inputEnd, matchLength);
                if (longMatch.Next == null)
                {
                    return -1;
                }

                input = longMatch.Next;
                matchLength = longMatch.Length;
            }

            matchLength += MinMatch;
            if (matchLength > (nuint)(outputEnd - output))
            {
                return -1;
            }

            byte* matchEnd = output + matchLength;
            CopyOverlapping(output, output - offset, matchEnd);
            output = matchEnd;
        }
    }

    /// <summary>
    /// Adds the bytes of a length past its token's 15 to <paramref name="length"/>: each byte, until one below 255. Returns
    /// the sum and where the bytes end, or a null <see cref="LengthRead.Next"/> where the source ends first or the length
    /// passes what any block holds. A value rather than <c>ref</c> parameters, so that the caller's pointer stays in a register.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static unsafe LengthRead ReadLength(byte* input, byte* inputEnd, nuint length)
    {
        uint next;
        do
        {
            if (input == inputEnd)
            {
                return default;
            }

            next = *input++;
            length += next;
        }
        while (next == 255);

        return length <= int.MaxValue ? new LengthRead(input, length) : default;
    }

    /// <summary>Copies 32 bytes at a time from <paramref name="source"/> until <paramref name="end"/> is reached, writing up to 31 bytes past it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static unsafe void CopyWild32(byte* destination, byte* source, byte* end)
    {
        do
        {
            Unsafe.CopyBlockUnaligned(destination, source, 16);
            Unsafe.CopyBlockUnaligned(destination + 16, source + 16, 16);
            destination += 32;
            source += 32;
        }
        while (destination < end);
    }

    /// <summary>Copies a match exactly, however near behind it starts: 8 bytes at a time from 8 or more back, a byte at a time nearer.</summary>
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

    /// <summary>A length read past its token, and where its bytes end.</summary>
    private readonly unsafe struct LengthRead(byte* next, nuint length)
    {
        public byte* Next { get; } = next;

        public nuint Length { get; } = length;
    }
}
