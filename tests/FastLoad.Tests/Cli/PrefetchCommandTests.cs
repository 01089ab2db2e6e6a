using System.Text.Json;
using FastLoad.Prefetch;
using FastLoad.Tests.Infrastructure;
using FastLoad.Tests.Prefetch;

namespace FastLoad.Tests.Tool;

public sealed class PrefetchCommandTests : PrefetchTestBase
{
    [LinuxFact]
    public async Task Prefetch_Manifest_ReadsItsRangesIntoTheCache()
    {
        string a = DataFile("a.bin", 2 * MiB);
        string manifest = Path.Combine(Root, "app.startup-manifest");
        Write(manifest, ManifestOf(Build, (a, [(0, MiB)])));
        Evict(a);

        var (exitCode, output, error) = await FastLoadTool.RunAsync([], "prefetch", manifest);

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {error}");
        Assert.Contains("prefetched 1 files: 1,048,576 bytes read, 0 already cached, 0 changed files skipped", output);
        AssertMostlyCached(MiB, Cached(a, 0, MiB));
        Assert.Equal(0, Cached(a, MiB, MiB));
    }

    [LinuxFact]
    public async Task Prefetch_QuietAndBudgetBeforeTheManifest_ReadsUpToTheBudgetSilently()
    {
        string a = DataFile("a.bin", 2 * MiB);
        string manifest = Path.Combine(Root, "app.startup-manifest");
        Write(manifest, ManifestOf(Build, (a, [(0, 2 * MiB)])));
        Evict(a);

        var (exitCode, output, error) = await FastLoadTool.RunAsync([], "prefetch", "-q", "--budget", $"{MiB}", manifest);

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {error}");
        Assert.Equal(string.Empty, output + error);
        AssertMostlyCached(MiB, Cached(a, 0, MiB));
        Assert.Equal(0, Cached(a, MiB, MiB));
    }

    [Theory]
    [InlineData("missing")]
    [InlineData("corrupt")]
    public async Task Prefetch_MissingOrCorruptManifest_ExitsWithOneNamingIt(string kind)
    {
        string manifest = Path.Combine(Root, "app.startup-manifest");
        if (kind == "corrupt")
        {
            File.WriteAllBytes(manifest, [1, 2, 3, 4]);
        }

        var (exitCode, _, error) = await FastLoadTool.RunAsync([], "prefetch", manifest);
        var (quietExitCode, quietOutput, quietError) = await FastLoadTool.RunAsync([], "prefetch", manifest, "--quiet");

        Assert.Equal(1, exitCode);
        Assert.Contains(manifest, error);
        Assert.Equal(1, quietExitCode);
        Assert.Equal(string.Empty, quietOutput + quietError);
    }

    [Fact]
    public async Task ManifestShow_Json_ListsEachFileWithItsPlaceAndState()
    {
        string current = DataFile("current.bin", 10_000);
        string changed = DataFile("changed.bin", 10_000);
        string manifest = Path.Combine(Root, "app.startup-manifest");
        StartupManifest recorded = ManifestOf(Build, (current, [(0, 4096), (8192, 1808)]), (changed, [(0, 10_000)]));
        Write(manifest, WithPlaces(recorded, (file, _) => file.Path == current ? 1 : 0));
        File.AppendAllText(changed, "more");

        var (exitCode, output, error) = await FastLoadTool.RunAsync([], "manifest", "show", manifest, "--json");

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {error}");
        using JsonDocument json = JsonDocument.Parse(output);
        JsonElement root = json.RootElement;
        Assert.Equal(Build, root.GetProperty("build").GetString());
        Assert.Equal(2, root.GetProperty("files").GetInt32());
        Assert.Equal(3, root.GetProperty("ranges").GetInt32());
        Assert.Equal(4096 + 1808 + 10_000, root.GetProperty("bytes").GetInt64());
        JsonElement[] entries = [.. root.GetProperty("entries").EnumerateArray()];
        Assert.Equal([changed, current], entries.Select(entry => entry.GetProperty("path").GetString()));
        Assert.Equal(["changed", "current"], entries.Select(entry => entry.GetProperty("state").GetString()));
        Assert.Equal([JsonValueKind.Null, JsonValueKind.Number], entries.Select(entry => entry.GetProperty("firstUse").ValueKind));
        Assert.Equal(1, entries[1].GetProperty("firstUse").GetInt32());
        Assert.Equal(8192, entries[1].GetProperty("ranges")[1][0].GetInt64());
    }

    [Fact]
    public async Task ManifestShow_Text_PrintsTheBuildAndTheFiles()
    {
        string a = DataFile("a.bin", 100);
        string manifest = Path.Combine(Root, "app.startup-manifest");
        File.WriteAllBytes(manifest, ManifestFormat.Write(ManifestOf(Build, (a, [(0, 100)]))));

        var (exitCode, output, _) = await FastLoadTool.RunAsync([], "manifest", "show", manifest);

        Assert.Equal(0, exitCode);
        Assert.Contains($"build      {Build}", output);
        Assert.Contains($"current  {a}", output);
    }

    [Fact]
    public async Task ManifestShow_Text_PathsWithControlCharactersArePrintedEscaped()
    {
        string hostile = Path.Combine(Root, "a\u001b]0;pwned\u0007\r\u202etxt.exe");
        string manifest = Path.Combine(Root, "app.startup-manifest");
        File.WriteAllBytes(manifest, ManifestFormat.Write(new StartupManifest("build\u001b[2J", [new StartupManifestFile(hostile, 100, 0, [new StartupManifestRange(0, 100)])])));

        var (exitCode, output, _) = await FastLoadTool.RunAsync([], "manifest", "show", manifest);

        // The tool ends its lines with the platform's newline (CR LF on Windows): only the paths' own CR is hostile.
        output = output.Replace(Environment.NewLine, "\n", StringComparison.Ordinal);
        Assert.Equal(0, exitCode);
        Assert.DoesNotContain(output, c => c is '\u001b' or '\u0007' or '\r' or '\u202e');
        Assert.Contains($"missing  {Path.Combine(Root, "a")}\\x1b]0;pwned\\x07\\x0d\\u202etxt.exe", output);
        Assert.Contains("build      build\\x1b[2J", output);
    }
}
