using System.Text;
using FastLoad.Packing;

namespace FastLoad.Tests.Packing;

/// <summary>The pack's content hash is XXH64 with seed 0: published vectors, and the hashes packs already carry.</summary>
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
}
