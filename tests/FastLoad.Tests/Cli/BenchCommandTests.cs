using System.Text;
using System.Text.Json;
using FastLoad.Shared;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Tool;

public class BenchCommandTests : TempDirectoryTestBase
{
    private const int SomeFailed = 1;

    [Fact]
    public async Task Bench_OnAFolder_MeasuresEveryMethodInNewProcessesAndPrintsTheTable()
    {
        WriteFiles(5);

        var (exitCode, output, error) = await FastLoadTool.RunAsync([], "bench", Root, "--rounds", "2");

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {error}");
        Assert.Contains("each load in a new process", output);
        Assert.Equal(2, output.Split('\n').Count(line => line.StartsWith("round ", StringComparison.Ordinal)));
        string[] methods = ["| Sequential File.ReadAllBytes ", "| Parallel.ForEachAsync", "| FastLoad (automatic) ", .. WhereTheReferenceRuns("| Reference: 64 threads")];
        foreach (string method in methods)
        {
            Assert.Contains(output.Split('\n'), line => line.StartsWith(method, StringComparison.Ordinal));
        }
    }

    [LinuxFact]
    public async Task Bench_FilesVanishAfterTheListing_StopsWithOneLineNamingAFileInsteadOfCrashing()
    {
        // Each measurement evicts the listed files first; half of them are gone by then. The comparison needs the same
        // files for every method, so it stops, saying which file and why.
        WriteFiles(200);
        using var bench = FastLoadTool.Start("bench", Root, "--rounds", "1");
        Task<string> error = bench.StandardError.ReadToEndAsync();
        var output = new StringBuilder();
        for (string? line = await bench.StandardOutput.ReadLineAsync(); line is not null; line = await bench.StandardOutput.ReadLineAsync())
        {
            output.AppendLine(line);
            if (line.StartsWith("Loading ", StringComparison.Ordinal))
            {
                // Printed once the files are listed, before the first measurement.
                foreach (string path in Directory.GetFiles(Root, "*", SearchOption.AllDirectories).Order(StringComparer.Ordinal).Where((_, i) => i % 2 == 0))
                {
                    File.Delete(path);
                }
            }
        }

        await bench.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(2));
        string errors = await error;
        Assert.True(bench.ExitCode == SomeFailed, $"exit code {bench.ExitCode}; stdout: {output}; stderr: {errors}");
        Assert.DoesNotContain("Unhandled exception", errors, StringComparison.Ordinal);
        Assert.Contains("did the files change", errors, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Bench_Json_GivesEveryMethodsMediansForTheBytesOfTheFolder()
    {
        long bytes = WriteFiles(7);

        var (exitCode, output, error) = await FastLoadTool.RunAsync([], "bench", Root, "--rounds", "1", "--json");

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {error}");
        using JsonDocument json = JsonDocument.Parse(output);
        Assert.Equal(7, json.RootElement.GetProperty("files").GetInt32());
        Assert.Equal(bytes, json.RootElement.GetProperty("bytes").GetInt64());
        string[] keys = [.. json.RootElement.GetProperty("methods").EnumerateArray().Select(method => method.GetProperty("key").GetString()!)];
        Assert.Equal(["loop", "parallel", "fastload", .. WhereTheReferenceRuns("reference")], keys);
        Assert.Contains("\"Parallel.ForEachAsync + ReadAllBytesAsync\"", output);
        Assert.All(
            json.RootElement.GetProperty("methods").EnumerateArray(),
            method =>
            {
                // Cold and warm, first and later load, for every method.
                foreach (string timing in (string[])["firstSeconds", "laterSeconds", "warmFirstSeconds", "warmLaterSeconds"])
                {
                    Assert.True(method.GetProperty(timing).GetDouble() > 0, timing);
                }
            });
    }

    [Fact]
    public async Task Bench_NativeReaderThatCannotStart_FailsNamingIt()
    {
        WriteFiles(2);
        string missing = Path.Combine(Root, "no-such-reader");

        var (exitCode, _, error) = await FastLoadTool.RunAsync([], "bench", Root, "--rounds", "1", "--native-reader", missing);

        Assert.Equal(SomeFailed, exitCode);
        Assert.Contains("cannot start the process measuring Native reader", error);
    }

    [IoUringFact]
    public async Task MeasureChild_FastLoadsFirstLoad_LoadsNoLoggingMetricsOrThreadAssembly()
    {
        // A loader made without a logger factory or a meter factory, and a load of a few files through the ring,
        // name none of those assemblies' types, each a load of an assembly that a new process pays on its first load.
        WriteFiles(20);
        string list = WriteFile("list.txt", 0);
        File.WriteAllLines(list, Directory.GetFiles(Root, "f*.bin"));

        var (exitCode, _, error) = await FastLoadTool.RunAsync([], "measure-child", "fastload", list, "--warm", "--assemblies");

        Assert.Equal(0, exitCode);
        string loaded = Assert.Single(error.Split('\n'), line => line.StartsWith("assemblies loaded by the first load:", StringComparison.Ordinal));
        Assert.DoesNotContain("Microsoft.Extensions.Logging.Abstractions", loaded);
        Assert.DoesNotContain("System.Diagnostics.DiagnosticSource", loaded);
        Assert.DoesNotContain("System.Threading.Thread", loaded);
    }

    [Fact]
    public async Task MeasureChild_UnknownMethod_ExitsWithUsage()
    {
        string list = WriteFile("list.txt", 0);

        var (exitCode, _, error) = await FastLoadTool.RunAsync([], "measure-child", "no-such-method", list);

        Assert.Equal(2, exitCode);
        Assert.Contains("no method 'no-such-method'", error);
    }

    // The reference reader calls libc, so Windows measures without it.
    private static string[] WhereTheReferenceRuns(string entry) => ReferenceReader.IsSupported ? [entry] : [];

    private long WriteFiles(int count)
    {
        long bytes = 0;
        for (int i = 0; i < count; i++)
        {
            WriteFile($"f{i}.bin", 1000 + (i * 777), seed: i);
            bytes += 1000 + (i * 777);
        }

        return bytes;
    }
}
