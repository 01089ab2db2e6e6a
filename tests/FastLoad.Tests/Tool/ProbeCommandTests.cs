using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Tool;

public class ProbeCommandTests : TempDirectoryTestBase
{
    private const int Usage = 2;

    [Fact]
    public async Task Probe_WithRounds_ReportsEveryDepthAndAutomaticOncePerRound()
    {
        for (int i = 0; i < 12; i++)
        {
            WriteFile($"f{i:D2}.bin", 10_000 + i, seed: i);
        }

        var (exitCode, output, error) = await FastLoadTool.RunAsync([], "probe", Root, "--max-depth", "4", "--rounds", "3", "--budget", "1048576");

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {error}");
        Assert.Contains("12 files, cold at each depth, 3 rounds, memory budget 1 MiB", output);
        // Rows are told by their first cell: a timing cell can read "8" too.
        string[] lines = output.Split('\n');
        foreach (string row in new[] { "|         1 |", "|         2 |", "|         4 |", "| automatic |" })
        {
            Assert.Contains(lines, line => line.StartsWith(row, StringComparison.Ordinal));
        }

        Assert.DoesNotContain(lines, line => line.StartsWith("|         8 |", StringComparison.Ordinal));
        Assert.Contains("of the best fixed depth", output);

        // One settled parallelism per round.
        string settled = lines.Single(line => line.StartsWith("automatic ", StringComparison.Ordinal));
        Assert.Equal(3, settled[(settled.IndexOf("settled at ", StringComparison.Ordinal) + "settled at ".Length)..settled.IndexOf(" in the", StringComparison.Ordinal)].Split(", ").Length);
    }

    [Theory]
    [InlineData("--rounds", "0")]
    [InlineData("--budget", "0")]
    [InlineData("--max-depth", "0")]
    public async Task Probe_WithAnOutOfRangeOption_ExitsWithUsage(string option, string value)
    {
        var (exitCode, _, error) = await FastLoadTool.RunAsync([], "probe", Root, option, value);

        Assert.Equal(Usage, exitCode);
        Assert.Contains("--rounds", error);
    }
}
