using FastLoad.Tests.Architecture;

namespace FastLoad.Tests.Docs;

/// <summary>
/// The README's code is a compiled sample: its quick start must be samples/QuickStart/Program.cs to the character, and
/// its install commands must make and add the packages the quick start needs.
/// </summary>
public class ReadmeTests
{
    [Fact]
    public void QuickStart_IsTheCompiledSample()
    {
        string readme = Read("README.md");
        string sample = Read("samples/QuickStart/Program.cs");

        Assert.Equal(sample, CodeBlockAfter(readme, "## Quick start", "```csharp"));
    }

    [Fact]
    public void GetIt_PacksAndAddsBothLibraryPackages()
    {
        string commands = CodeBlockAfter(Read("README.md"), "## Get it", "```sh");

        Assert.Contains("dotnet pack src/FastLoad -c Release -o packages", commands, StringComparison.Ordinal);
        Assert.Contains("dotnet pack src/FastLoad.Hosting -c Release -o packages", commands, StringComparison.Ordinal);
        Assert.Contains("dotnet add package FastLoad --version 0.1.0", commands, StringComparison.Ordinal);
        Assert.Contains("dotnet add package FastLoad.Hosting --version 0.1.0", commands, StringComparison.Ordinal);
    }

    // Found per test, not in a static constructor: a checkout that is not there fails each test, never its type.
    private static string Read(string relativePath) =>
        File.ReadAllText(Path.Combine(SourceLayers.FindRepositoryRoot(), relativePath)).ReplaceLineEndings("\n");

    /// <summary>The body of the first fenced block that opens with <paramref name="fence"/> after the line <paramref name="heading"/>.</summary>
    private static string CodeBlockAfter(string markdown, string heading, string fence)
    {
        int section = markdown.IndexOf("\n" + heading + "\n", StringComparison.Ordinal);
        Assert.True(section >= 0, $"README.md has no '{heading}' section.");
        int start = markdown.IndexOf("\n" + fence + "\n", section, StringComparison.Ordinal);
        Assert.True(start >= 0, $"README.md's '{heading}' has no {fence} block.");
        start += fence.Length + 2;
        int end = markdown.IndexOf("\n```\n", start - 1, StringComparison.Ordinal);
        return markdown[start..(end + 1)];
    }
}
