using FastLoad.Tests.Infrastructure;
using K4os.Compression.LZ4;

namespace FastLoad.Tests.Packing;

/// <summary>
/// The LZ4 blocks packs hold (K4os <c>LZ4Codec</c>): plain LZ4 block format both ways with the reference liblz4 at
/// every level, and the failure results the pack writer and reader rely on.
/// </summary>
public sealed class Lz4BlockTests
{
    /// <summary>From 1 byte: a pack's blocks are never empty (K4os answers an empty block with -1, liblz4 with a 1-byte block).</summary>
    public static TheoryData<string, int> Grid()
    {
        var grid = new TheoryData<string, int>();
        foreach (string kind in new[] { TestData.Zeros, TestData.Random, TestData.Text, TestData.Mixed })
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
        foreach (string kind in new[] { TestData.Text, TestData.Mixed })
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
        byte[] compressed = new byte[LZ4Codec.MaximumOutputSize(size)];
        int length = LZ4Codec.Encode(data, compressed, LZ4Level.L00_FAST);
        Assert.True(length > 0);
        byte[] decoded = new byte[size];
        Assert.Equal(size, NativeCodecs.Decompress(compressed.AsSpan(0, length), decoded));
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
        Assert.Equal(size, LZ4Codec.Decode(compressed.AsSpan(0, length), decoded));
        Assert.Equal(data, decoded);
    }

    [LinuxTheory("the reference liblz4.so.1, which .ci/run installs")]
    [MemberData(nameof(Levels))]
    public void Encode_AnyLevel_DecodesWithLiblz4(string kind, int level)
    {
        byte[] data = TestData.Create(kind, 300_000);
        byte[] compressed = new byte[LZ4Codec.MaximumOutputSize(data.Length)];
        int length = LZ4Codec.Encode(data, compressed, (LZ4Level)level);
        Assert.True(length > 0);
        byte[] decoded = new byte[data.Length];
        Assert.Equal(data.Length, NativeCodecs.Decompress(compressed.AsSpan(0, length), decoded));
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
    public void Decode_MalformedBlock_ReturnsNegative(byte[] block)
    {
        Assert.True(LZ4Codec.Decode(block, new byte[64]) < 0);
    }

    [Fact]
    public void Decode_OutputLongerThanDestination_ReturnsNegative()
    {
        byte[] data = TestData.Create(TestData.Text, 5000);
        byte[] compressed = new byte[LZ4Codec.MaximumOutputSize(data.Length)];
        int length = LZ4Codec.Encode(data, compressed, LZ4Level.L00_FAST);
        for (int size = 0; size < data.Length; size += 97)
        {
            Assert.True(LZ4Codec.Decode(compressed.AsSpan(0, length), new byte[size]) < 0, $"destination of {size} bytes");
        }
    }

    [Fact]
    public void Decode_RandomBytes_NeverThrowsOrOverruns()
    {
        var random = new Random(7);
        byte[] destination = new byte[4096 + 64];
        for (int i = 0; i < 20_000; i++)
        {
            byte[] block = new byte[random.Next(64)];
            random.NextBytes(block);
            destination.AsSpan(4096).Fill(0xAB);
            int result = LZ4Codec.Decode(block, destination.AsSpan(0, 4096));
            Assert.InRange(result, int.MinValue, 4096);
            Assert.True(destination.AsSpan(4096).IndexOfAnyExcept((byte)0xAB) < 0, "wrote past the destination");
        }
    }
}
