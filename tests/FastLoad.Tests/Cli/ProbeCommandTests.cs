using System.Diagnostics;
using System.Text;
using System.Text.RegularExpressions;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Tool;

public class ProbeCommandTests : TempDirectoryTestBase
{
    private const int Usage = 2;

    [Fact]
    public async Task Probe_WithRounds_ReportsEveryDepthInBothOrdersAndAutomaticOncePerRound()
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
        foreach (string row in new[] { "|         1 | set ", "|         1 | physical ", "|         2 | set ", "|         2 | physical ", "|         4 | set ", "|         4 | physical ", "| automatic | auto " })
        {
            Assert.Single(lines, line => line.StartsWith(row, StringComparison.Ordinal));
        }

        Assert.Matches(@"recommended  \d+ in (set|physical) order", output);

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

    [LinuxFact]
    public async Task Probe_FilesVanishDuringTheSweep_SkipsAndCountsThem()
    {
        // A temporary, build or log folder changes while it is probed: each load of the sweep evicts the listed files
        // first, and half of them are gone by then.
        const int Count = 2000;
        for (int i = 0; i < Count; i++)
        {
            WriteFile($"f{i:D4}.bin", 4096, seed: i);
        }

        using Process probe = FastLoadTool.Start("probe", Root, "--max-depth", "4", "--rounds", "2");
        Task<string> error = probe.StandardError.ReadToEndAsync();
        var output = new StringBuilder();
        for (string? line = await probe.StandardOutput.ReadLineAsync(); line is not null; line = await probe.StandardOutput.ReadLineAsync())
        {
            output.AppendLine(line);
            if (line.StartsWith("sweep", StringComparison.Ordinal))
            {
                // Printed once the files are listed, just before the first load.
                for (int i = 0; i < Count; i += 2)
                {
                    File.Delete(Path.Combine(Root, $"f{i:D4}.bin"));
                }
            }
        }

        await probe.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(2));
        Assert.True(probe.ExitCode == 0, $"exit code {probe.ExitCode}; stdout: {output}; stderr: {await error}");
        Assert.Matches(new Regex(@"changed\s+1[,.\u00a0\u202f]?000 of the 2[,.\u00a0\u202f]?000 files vanished"), output.ToString());
        Assert.Contains("recommended", output.ToString(), StringComparison.Ordinal);
    }
}
