using FastLoad.Packing.Lz4;

namespace FastLoad.Tests.Packing;

/// <summary>The managed LZ4 block codec: round trips, interoperability with liblz4 both ways, malformed blocks.</summary>
public sealed class Lz4CodecTests
{
    public static TheoryData<string, int> Grid()
    {
        var grid = new TheoryData<string, int>();
        foreach (string kind in new[] { TestData.Zeros, TestData.Random, TestData.Text, TestData.Mixed })
        {
            foreach (int size in new[] { 0, 1, 5, 12, 13, 14, 64, 255, 4095, 4096, 4097, 65535, 65536, 65537, 1 << 20, (3 << 20) + 7 })
            {
                grid.Add(kind, size);
            }
        }

        return grid;
    }

    [Theory]
    [MemberData(nameof(Grid))]
    public void Encode_AnyData_DecodesToTheSameBytes(string kind, int size)
    {
        byte[] data = TestData.Create(kind, size);
        byte[] compressed = new byte[Lz4Codec.MaximumOutputSize(size)];
        int length = Lz4Codec.Encode(data, compressed);
        Assert.True(length > 0);
        byte[] decoded = new byte[size];
        Assert.Equal(size, Lz4Codec.Decode(compressed.AsSpan(0, length), decoded));
        Assert.Equal(data, decoded);
    }

    [Lz4Theory]
    [MemberData(nameof(Grid))]
    public void Encode_AnyData_DecodesWithLiblz4(string kind, int size)
    {
        byte[] data = TestData.Create(kind, size);
        Assert.Equal(NativeCodecs.CompressBound(size), Lz4Codec.MaximumOutputSize(size));
        byte[] compressed = new byte[Lz4Codec.MaximumOutputSize(size)];
        int length = Lz4Codec.Encode(data, compressed);
        byte[] decoded = new byte[size];
        Assert.Equal(size, NativeCodecs.Decompress(compressed.AsSpan(0, length), decoded));
        Assert.Equal(data, decoded);
    }

    [Lz4Theory]
    [MemberData(nameof(Grid))]
    public void Decode_Liblz4Block_GivesTheSameBytes(string kind, int size)
    {
        byte[] data = TestData.Create(kind, size);
        byte[] compressed = new byte[NativeCodecs.CompressBound(size)];
        int length = NativeCodecs.Compress(data, compressed);
        Assert.True(length > 0);
        byte[] decoded = new byte[size];
        Assert.Equal(size, Lz4Codec.Decode(compressed.AsSpan(0, length), decoded));
        Assert.Equal(data, decoded);
    }

    [Lz4Theory]
    [InlineData(2)]
    [InlineData(8)]
    [InlineData(65537)]
    public void Encode_Accelerated_DecodesWithLiblz4(int acceleration)
    {
        foreach (string kind in new[] { TestData.Text, TestData.Mixed })
        {
            byte[] data = TestData.Create(kind, 300_000);
            byte[] compressed = new byte[Lz4Codec.MaximumOutputSize(data.Length)];
            int length = Lz4Codec.Encode(data, compressed, acceleration);
            byte[] decoded = new byte[data.Length];
            Assert.Equal(data.Length, NativeCodecs.Decompress(compressed.AsSpan(0, length), decoded));
            Assert.Equal(data, decoded);
        }
    }

    [Fact]
    public void Encode_DestinationTooSmall_ReturnsZero()
    {
        byte[] data = TestData.Create(TestData.Random, 10_000);
        Assert.Equal(0, Lz4Codec.Encode(data, new byte[9_000]));
    }

    [Theory]
    [InlineData(new byte[] { })]
    [InlineData(new byte[] { 0xF0 })]
    [InlineData(new byte[] { 0xF0, 255, 255 })]
    [InlineData(new byte[] { 0x10, (byte)'a', 0, 0 })]
    [InlineData(new byte[] { 0x10, (byte)'a', 2, 0 })]
    [InlineData(new byte[] { 0x1F, (byte)'a', 1, 0, 255, 255, 255 })]
    public void Decode_MalformedBlock_ReturnsNegative(byte[] block)
    {
        Assert.Equal(-1, Lz4Codec.Decode(block, new byte[64]));
    }

    [Fact]
    public void Decode_OutputLongerThanDestination_ReturnsNegative()
    {
        byte[] data = TestData.Create(TestData.Text, 5000);
        byte[] compressed = new byte[Lz4Codec.MaximumOutputSize(data.Length)];
        int length = Lz4Codec.Encode(data, compressed);
        for (int size = 0; size < data.Length; size += 97)
        {
            Assert.Equal(-1, Lz4Codec.Decode(compressed.AsSpan(0, length), new byte[size]));
        }
    }

    [Fact]
    public void Decode_RandomBytes_NeverThrows()
    {
        var random = new Random(7);
        byte[] destination = new byte[4096];
        for (int i = 0; i < 20_000; i++)
        {
            byte[] block = new byte[random.Next(64)];
            random.NextBytes(block);
            int result = Lz4Codec.Decode(block, destination);
            Assert.InRange(result, -1, destination.Length);
        }
    }
}
