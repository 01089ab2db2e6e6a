using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Tool;

/// <summary><c>fastload pack</c>: what it says about special files, and about what the providers would hide.</summary>
public class PackCommandTests : TempDirectoryTestBase
{
    private string Site => Path.Combine(Root, "site");

    private string PackPath => Path.Combine(Root, "site.fpk");

    [LinuxFact]
    public async Task Pack_FolderWithAFifo_FailsNamingItAndTheOptionThatSkipsIt()
    {
        WriteFile("site/index.html", 10);
        string fifo = Native.CreateFifo(Path.Combine(Site, "pipe"));

        var (exitCode, output, error) = await FastLoadTool.RunAsync([], "pack", Site, PackPath);

        Assert.True(exitCode == 1, $"exit code {exitCode}; stdout: {output}");
        Assert.Contains(fifo, error, StringComparison.Ordinal);
        Assert.Contains("--skip-special-files", error, StringComparison.Ordinal);
        Assert.False(File.Exists(PackPath));
    }

    [LinuxFact]
    public async Task Pack_SkipSpecialFiles_WarnsForEachAndPacksTheRest()
    {
        WriteFile("site/index.html", 10);
        string fifo = Native.CreateFifo(Path.Combine(Site, "pipe"));

        var (exitCode, output, error) = await FastLoadTool.RunAsync([], "pack", Site, PackPath, "--skip-special-files");

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {error}");
        Assert.Equal($"warning: '{fifo}' is a FIFO (named pipe), not a regular file; it was left out of the pack.", error.Trim());
        Assert.StartsWith("1 files", output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Pack_DotPrefixedEntries_SaysWhatTheProvidersHideAndWhatTheyServeByPath()
    {
        WriteFile("site/index.html", 10);
        WriteFile("site/.env", 10);
        WriteFile("site/css/.map", 10);
        WriteFile("site/.git/config", 10);
        WriteFile("site/.well-known/security.txt", 10);

        var (exitCode, output, error) = await FastLoadTool.RunAsync([], "pack", Site, PackPath);

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {error}");
        string[] notes = [.. output.Split('\n').Where(line => line.StartsWith("note:", StringComparison.Ordinal))];
        Assert.Equal(2, notes.Length);
        Assert.Contains("2 dot-prefixed entries", notes[0], StringComparison.Ordinal);
        Assert.EndsWith(": .env, css/.map", notes[0].TrimEnd(), StringComparison.Ordinal);
        Assert.Contains("2 entries in dot-prefixed folders", notes[1], StringComparison.Ordinal);
        Assert.EndsWith(": .git/config, .well-known/security.txt", notes[1].TrimEnd(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Pack_NoDotPrefixedEntries_PrintsNoNote()
    {
        WriteFile("site/index.html", 10);

        var (exitCode, output, _) = await FastLoadTool.RunAsync([], "pack", Site, PackPath);

        Assert.Equal(0, exitCode);
        Assert.DoesNotContain("note:", output, StringComparison.Ordinal);
    }
}
