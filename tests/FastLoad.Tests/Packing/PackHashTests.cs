using System.IO.Hashing;
using System.Reflection;
using System.Text;
using FastLoad.Packing;

namespace FastLoad.Tests.Packing;

/// <summary>The pack's content hash is XXH64 with seed 0: published vectors, whole or in pieces, and how it is compiled.</summary>
public sealed class PackHashTests
{
    [Theory]
    [InlineData("", 0xEF46DB3751D8E999UL)]
    [InlineData("a", 0xD24EC4F1A98C6E5BUL)]
    [InlineData("abc", 0x44BC2CF5AD770999UL)]
    public void Hash_KnownVector_Matches(string text, ulong expected)
    {
        Assert.Equal(expected, PackHash.Hash(Encoding.ASCII.GetBytes(text)));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(31)]
    [InlineData(32)]
    [InlineData(100)]
    [InlineData(70_001)]
    public void Incremental_AnyPieces_MatchesTheWholeHash(int length)
    {
        byte[] data = TestData.Create(TestData.Random, length, seed: 13);
        var random = new Random(length);
        for (int round = 0; round < 20; round++)
        {
            var hash = new PackHash.Incremental();
            for (int at = 0; at < length;)
            {
                int piece = Math.Min(length - at, random.Next(0, round < 10 ? 40 : 5000));
                hash.Append(data.AsSpan(at, piece));
                at += piece;
            }

            Assert.Equal(PackHash.Hash(data), hash.Complete());
        }
    }

    /// <summary>Every tail length (0-31 bytes after the 32-byte stripes) and a few large sizes, against System.IO.Hashing.</summary>
    [Fact]
    public void Hash_AnyLength_MatchesSystemIoHashing()
    {
        byte[] data = TestData.Create(TestData.Random, 1 << 20, seed: 7);
        for (int length = 0; length <= 300; length++)
        {
            for (int offset = 0; offset < 8; offset += 3)
            {
                ReadOnlySpan<byte> span = data.AsSpan(offset, length);
                Assert.True(XxHash64.HashToUInt64(span) == PackHash.Hash(span), $"{length} bytes at {offset}");
            }
        }

        foreach (int length in new[] { 4095, 4096, 4097, 70_001, 1 << 20 })
        {
            Assert.True(XxHash64.HashToUInt64(data.AsSpan(0, length)) == PackHash.Hash(data.AsSpan(0, length)), $"{length} bytes");
        }
    }

    /// <summary>
    /// The whole-entry hash is precompiled with the library (no run-time-only compilation); the streaming one goes through
    /// System.IO.Hashing (IL only), whose loop runs optimized only if inlined into a method the JIT compiles with full
    /// optimization, and never into a precompiled caller.
    /// </summary>
    [Fact]
    public void HashingEntryPoints_CompiledAsIntended()
    {
        MethodImplAttributes whole = typeof(PackHash).GetMethod(nameof(PackHash.Hash))!.MethodImplementationFlags;
        MethodImplAttributes pieces = typeof(PackHash.Incremental).GetMethod(nameof(PackHash.Incremental.Append))!.MethodImplementationFlags;

        Assert.False(whole.HasFlag(MethodImplAttributes.AggressiveOptimization), $"PackHash.Hash: {whole}");
        Assert.True(pieces.HasFlag(MethodImplAttributes.AggressiveOptimization), $"Incremental.Append: {pieces}");
        Assert.True(pieces.HasFlag(MethodImplAttributes.NoInlining), $"Incremental.Append: {pieces}");
    }
}
