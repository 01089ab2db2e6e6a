using FastLoad.Packing;

namespace FastLoad.Tests.Packing;

/// <summary>Entry names: what is refused and why, and the dotted names that are ordinary files.</summary>
public sealed class PackNamesTests
{
    [Theory]
    [InlineData("a")]
    [InlineData(".hidden")]
    [InlineData("dir/..name")]
    [InlineData("dir/.../f")]
    [InlineData("dir.d/f.")]
    [InlineData("a/b/c/d.txt")]
    public void Check_SafeName_ReturnsNull(string name)
    {
        Assert.Null(PackNames.Check(name));
    }

    [Theory]
    [InlineData("", "empty")]
    [InlineData("/a", "rooted")]
    [InlineData("a/", "empty segment")]
    [InlineData("a//b", "empty segment")]
    [InlineData(".", "'.' or '..'")]
    [InlineData("..", "'.' or '..'")]
    [InlineData("a/.", "'.' or '..'")]
    [InlineData("a/../b", "'.' or '..'")]
    [InlineData("a\\b", "backslash")]
    [InlineData("a\0b", "NUL")]
    [InlineData("c:a", "':'")]
    public void Check_UnsafeName_SaysWhy(string name, string reason)
    {
        Assert.Contains(reason, PackNames.Check(name), StringComparison.Ordinal);
    }
}
