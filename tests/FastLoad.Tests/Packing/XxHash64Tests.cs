using System.Text;
using FastLoad.Packing;

namespace FastLoad.Tests.Packing;

/// <summary>XXH64 against published vectors and, where installed, libxxhash.</summary>
public sealed class XxHash64Tests
{
    [Theory]
    [InlineData("", 0UL, 0xEF46DB3751D8E999UL)]
    [InlineData("a", 0UL, 0xD24EC4F1A98C6E5BUL)]
    [InlineData("abc", 0UL, 0x44BC2CF5AD770999UL)]
    public void Hash_KnownVector_Matches(string text, ulong seed, ulong expected)
    {
        Assert.Equal(expected, XxHash64.Hash(Encoding.ASCII.GetBytes(text), seed));
    }

    [XxHashTheory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(3)]
    [InlineData(4)]
    [InlineData(7)]
    [InlineData(8)]
    [InlineData(31)]
    [InlineData(32)]
    [InlineData(33)]
    [InlineData(63)]
    [InlineData(64)]
    [InlineData(100)]
    [InlineData(4097)]
    [InlineData(1 << 20)]
    public void Hash_AnyLength_MatchesLibxxhash(int length)
    {
        byte[] data = TestData.Create(TestData.Random, length, seed: length);
        foreach (ulong seed in new[] { 0UL, 1UL, 0x9E3779B97F4A7C15UL })
        {
            Assert.Equal(NativeCodecs.XxHash64(data, seed), XxHash64.Hash(data, seed));
        }
    }
}
