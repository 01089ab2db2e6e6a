using FastLoad.Packing;
using FastLoad.Tests.Infrastructure;
using K4os.Compression.LZ4;

namespace FastLoad.Tests.Packing;

/// <summary>
/// The LZ4 blocks packs hold, written by K4os <c>LZ4Codec</c> and read by <see cref="Lz4BlockDecoder"/>: plain LZ4 block
/// format both ways with the reference liblz4 at every level, and the failure results the pack writer and reader rely on.
/// </summary>
public sealed class Lz4BlockTests
{
    /// <summary>From 1 byte: a pack's blocks are never empty (K4os answers an empty block with -1, liblz4 with a 1-byte block).</summary>
    public static TheoryData<string, int> Grid()
    {
        var grid = new TheoryData<string, int>();
        foreach (string kind in new[] { TestData.Zeros, TestData.Random, TestData.Text, TestData.Mixed, TestData.Repeats })
        {
            foreach (int size in new[] { 1, 5, 12, 13, 14, 64, 255, 4095, 4096, 4097, 65535, 65536, 65537, 1 << 20, (3 << 20) + 7 })
            {
                grid.Add(kind, size);
            }
        }

        return grid;
    }

    public static TheoryData<string, int> Levels()
    {
        var grid = new TheoryData<string, int>();
        foreach (string kind in new[] { TestData.Text, TestData.Mixed, TestData.Repeats })
        {
            foreach (int level in new[] { 0, 2, 3, 6, 9, 10, 11, 12 })
            {
                grid.Add(kind, level);
            }
        }

        return grid;
    }

    [LinuxTheory("the reference liblz4.so.1, which .ci/run installs")]
    [MemberData(nameof(Grid))]
    public void Encode_AnyData_DecodesWithLiblz4(string kind, int size)
    {
        byte[] data = TestData.Create(kind, size);
        Assert.Equal(NativeCodecs.CompressBound(size), LZ4Codec.MaximumOutputSize(size));
        byte[] block = Encode(data, LZ4Level.L00_FAST);
        byte[] decoded = new byte[size];
        Assert.Equal(size, NativeCodecs.Decompress(block, decoded));
        Assert.Equal(data, decoded);
    }

    [LinuxTheory("the reference liblz4.so.1, which .ci/run installs")]
    [MemberData(nameof(Grid))]
    public void Decode_Liblz4Block_GivesTheSameBytes(string kind, int size)
    {
        byte[] data = TestData.Create(kind, size);
        byte[] compressed = new byte[NativeCodecs.CompressBound(size)];
        int length = NativeCodecs.Compress(data, compressed);
        Assert.True(length > 0);
        byte[] decoded = new byte[size];
        Assert.Equal(size, Lz4BlockDecoder.Decode(compressed.AsSpan(0, length), decoded));
        Assert.Equal(data, decoded);
    }

    /// <summary>What the pack writer stores, read back as the pack reader does, exactly at its length and with room to spare.</summary>
    [Theory]
    [MemberData(nameof(Grid))]
    public void Decode_EncodedBlock_GivesTheSameBytes(string kind, int size)
    {
        byte[] data = TestData.Create(kind, size);
        AssertDecodes(data, Encode(data, LZ4Level.L00_FAST));
    }

    [Theory]
    [MemberData(nameof(Levels))]
    public void Decode_EncodedBlockAnyLevel_GivesTheSameBytes(string kind, int level)
    {
        byte[] data = TestData.Create(kind, 300_000);
        AssertDecodes(data, Encode(data, (LZ4Level)level));
    }

    [LinuxTheory("the reference liblz4.so.1, which .ci/run installs")]
    [MemberData(nameof(Levels))]
    public void Encode_AnyLevel_DecodesWithLiblz4(string kind, int level)
    {
        byte[] data = TestData.Create(kind, 300_000);
        byte[] decoded = new byte[data.Length];
        Assert.Equal(data.Length, NativeCodecs.Decompress(Encode(data, (LZ4Level)level), decoded));
        Assert.Equal(data, decoded);
    }

    /// <summary>The writer gives the encoder only the worth-it limit and stores the block raw when the result is not positive.</summary>
    [Theory]
    [InlineData(0)]
    [InlineData(3)]
    [InlineData(9)]
    [InlineData(12)]
    public void Encode_DestinationTooSmall_ReturnsNotPositive(int level)
    {
        byte[] data = TestData.Create(TestData.Random, 10_000);
        Assert.True(LZ4Codec.Encode(data, new byte[9_000], (LZ4Level)level) <= 0);
    }

    [Theory]
    [InlineData(new byte[] { 0xF0 })]
    [InlineData(new byte[] { 0xF0, 255, 255 })]
    [InlineData(new byte[] { 0x10, (byte)'a', 0, 0 })]
    [InlineData(new byte[] { 0x10, (byte)'a', 2, 0 })]
    [InlineData(new byte[] { 0x1F, (byte)'a', 1, 0, 255, 255, 255 })]
    [InlineData(new byte[] { 0x10, (byte)'a', 1, 0 })]
    [InlineData(new byte[] { 0x20, (byte)'a', (byte)'b', 3, 0, 0x00 })]
    [InlineData(new byte[] { })]
    public void Decode_MalformedBlock_ReturnsNegative(byte[] block)
    {
        // Each is refused by liblz4 as well: a lone token, a match past the start, a block that ends with a match.
        Assert.Equal(-1, Lz4BlockDecoder.Decode(block, new byte[64]));
    }

    /// <summary>The 1-byte block liblz4 writes for no bytes at all.</summary>
    [Fact]
    public void Decode_EmptyBlock_ReturnsZero()
    {
        Assert.Equal(0, Lz4BlockDecoder.Decode([0x00], new byte[64]));
        Assert.Equal(0, Lz4BlockDecoder.Decode([0x00], []));
    }

    [Fact]
    public void Decode_OutputLongerThanDestination_ReturnsNegative()
    {
        byte[] data = TestData.Create(TestData.Text, 5000);
        byte[] block = Encode(data, LZ4Level.L00_FAST);
        for (int size = 0; size < data.Length; size += 97)
        {
            byte[] destination = new byte[size + Guard];
            destination.AsSpan(size).Fill(GuardByte);
            Assert.True(Lz4BlockDecoder.Decode(block, destination.AsSpan(0, size)) < 0, $"destination of {size} bytes");
            AssertGuardIntact(destination.AsSpan(size));
        }
    }

    [Fact]
    public void Decode_RandomBytes_NeverThrowsOrOverruns()
    {
        var random = new Random(7);
        byte[] destination = new byte[4096 + Guard];
        for (int i = 0; i < 20_000; i++)
        {
            byte[] block = new byte[random.Next(64)];
            random.NextBytes(block);
            destination.AsSpan(4096).Fill(GuardByte);
            int result = Lz4BlockDecoder.Decode(block, destination.AsSpan(0, 4096));
            Assert.InRange(result, -1, 4096);
            AssertGuardIntact(destination.AsSpan(4096));
        }
    }

    /// <summary>
    /// Valid blocks with bytes changed, dropped or cut off: where K4os's decoder (a port of liblz4's) accepts one, the
    /// same bytes; where it refuses one, -1 or bytes within the destination, never a write past it. A match at offset 0,
    /// which the format forbids and both of those copy from the destination's old contents, is refused; so is an empty
    /// block, which liblz4 refuses too and K4os takes for no bytes.
    /// </summary>
    [Theory]
    [InlineData(TestData.Text, 0)]
    [InlineData(TestData.Mixed, 9)]
    [InlineData(TestData.Repeats, 0)]
    [InlineData(TestData.Repeats, 12)]
    public void Decode_DamagedBlock_AgreesWithTheReferenceOrRefuses(string kind, int level)
    {
        byte[] data = TestData.Create(kind, 2_000);
        byte[] valid = Encode(data, (LZ4Level)level);
        var random = new Random(11);
        byte[] expected = new byte[data.Length];
        byte[] destination = new byte[data.Length + Guard];
        int accepted = 0;
        for (int i = 0; i < 5_000; i++)
        {
            byte[] damaged = Damage(valid, random);
            int capacity = random.Next(2) == 0 ? data.Length : random.Next(data.Length + 1);
            destination.AsSpan(capacity).Fill(GuardByte);
            int reference = LZ4Codec.Decode(damaged, expected.AsSpan(0, capacity));
            int result = Lz4BlockDecoder.Decode(damaged, destination.AsSpan(0, capacity));
            AssertGuardIntact(destination.AsSpan(capacity));
            if (reference >= 0 && damaged.Length > 0 && !HasMatchAtOffsetZero(damaged))
            {
                accepted++;
                Assert.Equal(reference, result);
                Assert.True(expected.AsSpan(0, reference).SequenceEqual(destination.AsSpan(0, result)), $"damaged block {i} decodes to other bytes");
            }
            else
            {
                Assert.InRange(result, -1, capacity);
            }
        }

        Assert.True(accepted > 100, $"only {accepted} damaged blocks were valid: the comparison checks little");
    }

    private const int Guard = 64;
    private const byte GuardByte = 0xAB;

    /// <summary>The block K4os writes for <paramref name="data"/> at <paramref name="level"/>, as the pack writer stores it.</summary>
    private static byte[] Encode(byte[] data, LZ4Level level)
    {
        byte[] compressed = new byte[LZ4Codec.MaximumOutputSize(data.Length)];
        int length = LZ4Codec.Encode(data, compressed, level);
        Assert.True(length > 0);
        return compressed.AsSpan(0, length).ToArray();
    }

    private static void AssertDecodes(byte[] data, ReadOnlySpan<byte> block)
    {
        byte[] exact = new byte[data.Length + Guard];
        exact.AsSpan(data.Length).Fill(GuardByte);
        Assert.Equal(data.Length, Lz4BlockDecoder.Decode(block, exact.AsSpan(0, data.Length)));
        Assert.True(exact.AsSpan(0, data.Length).SequenceEqual(data), "decoded into exactly its length");
        AssertGuardIntact(exact.AsSpan(data.Length));

        byte[] roomy = new byte[data.Length + 100];
        Assert.Equal(data.Length, Lz4BlockDecoder.Decode(block, roomy));
        Assert.True(roomy.AsSpan(0, data.Length).SequenceEqual(data), "decoded with room to spare");
    }

    /// <summary>Whether a sequence of the block, read as far as the block is well formed, has a match at offset 0.</summary>
    private static bool HasMatchAtOffsetZero(ReadOnlySpan<byte> block)
    {
        int at = 0;
        while (at < block.Length)
        {
            int token = block[at++];
            long literals = token >> 4;
            if (literals == 15)
            {
                int next;
                do
                {
                    if (at == block.Length)
                    {
                        return false;
                    }

                    next = block[at++];
                    literals += next;
                }
                while (next == 255);
            }

            at = (int)Math.Min(block.Length, at + literals);
            if (block.Length - at < 2)
            {
                return false;
            }

            if ((block[at] | (block[at + 1] << 8)) == 0)
            {
                return true;
            }

            at += 2;
            if ((token & 15) == 15)
            {
                while (at < block.Length && block[at++] == 255)
                {
                }
            }
        }

        return false;
    }

    private static void AssertGuardIntact(ReadOnlySpan<byte> guard) =>
        Assert.True(guard.IndexOfAnyExcept(GuardByte) < 0, "wrote past the destination");

    private static byte[] Damage(byte[] valid, Random random)
    {
        byte[] damaged = (byte[])valid.Clone();
        switch (random.Next(4))
        {
            case 0:
                damaged[random.Next(damaged.Length)] = (byte)random.Next(256);
                return damaged;
            case 1:
                for (int k = 0; k < 4; k++)
                {
                    damaged[random.Next(damaged.Length)] ^= (byte)(1 << random.Next(8));
                }

                return damaged;
            case 2:
                return damaged.AsSpan(0, random.Next(damaged.Length)).ToArray();
            default:
                int drop = random.Next(damaged.Length);
                return [.. damaged.AsSpan(0, drop), .. damaged.AsSpan(drop + 1)];
        }
    }
}
