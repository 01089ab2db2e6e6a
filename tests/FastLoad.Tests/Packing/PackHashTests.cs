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

    /// <summary>
    /// The hashing loop of System.IO.Hashing (IL only) runs optimized only if inlined into a method the JIT compiles
    /// with full optimization; a precompiled caller that inlined the wrapper would call the package's tier-0 code.
    /// </summary>
    [Theory]
    [InlineData(typeof(PackHash), nameof(PackHash.Hash))]
    [InlineData(typeof(PackHash.Incremental), nameof(PackHash.Incremental.Append))]
    public void HashingEntryPoints_CompiledOptimizedAtRunTimeAndNeverInlined(Type type, string method)
    {
        ArgumentNullException.ThrowIfNull(type);
        MethodImplAttributes flags = type.GetMethod(method)!.MethodImplementationFlags;

        Assert.True(flags.HasFlag(MethodImplAttributes.AggressiveOptimization), $"{type.Name}.{method}: {flags}");
        Assert.True(flags.HasFlag(MethodImplAttributes.NoInlining), $"{type.Name}.{method}: {flags}");
    }
}
