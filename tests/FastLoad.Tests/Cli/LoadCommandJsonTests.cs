using System.Text.Json;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Tool;

/// <summary><c>fastload load --json</c> is read by people and scripts: characters HTML would escape are written as they are.</summary>
public class LoadCommandJsonTests : TempDirectoryTestBase
{
    [LinuxFact]
    public async Task Load_Json_WritesPlusAndArrowsUnescaped()
    {
        WriteFile("a.bin", 100);
        string fifo = Native.CreateFifo(Path.Combine(Root, "x->y+z.bin"));

        // --cold: the cache note says "fsync + posix_fadvise"; the error of the FIFO, which no load reads, names "x->y+z.bin".
        var (exitCode, output, error) = await FastLoadTool.RunAsync([], "load", Path.Combine(Root, "a.bin"), fifo, "--cold", "--json");

        Assert.True(exitCode == 1, $"exit code {exitCode}; stderr: {error}");
        Assert.Contains("fsync + posix_fadvise", output, StringComparison.Ordinal);
        Assert.Contains("x->y+z.bin", output, StringComparison.Ordinal);
        Assert.DoesNotContain("\\u00", output, StringComparison.Ordinal);
        using JsonDocument json = JsonDocument.Parse(output);
        Assert.Equal(fifo, json.RootElement.GetProperty("errors")[0].GetProperty("path").GetString());
    }
}
