using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Text.Json;

namespace FastLoad.Benchmarks;

/// <summary>
/// Runs fio (when installed) for a <see cref="FioJob"/> and returns the IOPS it reached; results are cached per job for
/// the life of the process (keyed without the I/O count, so that cases over the same file share one fio run). Raw fio JSON goes to FASTLOAD_FIO_OUTPUT when that is set.
/// </summary>
internal static class FioProbe
{
    private const int ProbeFileSize = 256 << 20;
    private static readonly ConcurrentDictionary<FioJob, FioResult?> Results = new();

    public static bool IsInstalled { get; } = (Environment.GetEnvironmentVariable("PATH") ?? "")
        .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
        .Any(directory => File.Exists(Path.Combine(directory, "fio")));

    /// <summary>The IOPS fio reaches for the job, or null without fio or when it failed (the reason goes to stderr).</summary>
    public static FioResult? Measure(FioJob job) => IsInstalled ? Results.GetOrAdd(job with { IoCount = 0 }, Run) : null;

    private static FioResult? Run(FioJob job)
    {
        FioResult? result = RunFio(job.Target, job.ReadWrite, job.BlockSize, job.IoDepth);
        if (result is { Iops: > 0 })
        {
            return result with { Basis = $"{job.ReadWrite} bs={job.BlockSize / 1024}K qd={job.IoDepth}" };
        }

        // Every file is smaller than one block (fio reads whole blocks only): such files cost one small random read each.
        string probe = BenchmarkData.GetOrCreate("fio-probe", 1, ProbeFileSize, ProbeFileSize)[0];
        result = RunFio(probe, "randread", 4096, job.IoDepth);
        return result is { Iops: > 0 } ? result with { Basis = $"randread bs=4K qd={job.IoDepth} on a probe file" } : null;
    }

    private static FioResult? RunFio(string target, string readWrite, int blockSize, int ioDepth)
    {
        string output = Path.Combine(Path.GetTempPath(), $"fastload-fio-{Environment.ProcessId}-{Guid.NewGuid():N}.json");
        var start = new ProcessStartInfo("fio") { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string argument in new[]
        {
            "--name=fastload", Directory.Exists(target) ? $"--opendir={target}" : $"--filename={target}",
            $"--rw={readWrite}", $"--bs={blockSize}", $"--iodepth={ioDepth}", "--direct=1", "--ioengine=io_uring",
            "--file_service_type=roundrobin", "--output-format=json", $"--output={output}",
        })
        {
            start.ArgumentList.Add(argument);
        }

        if (readWrite == "randread")
        {
            start.ArgumentList.Add("--runtime=5");
            start.ArgumentList.Add("--time_based");
        }

        try
        {
            using Process process = Process.Start(start) ?? throw new InvalidOperationException("fio did not start.");
            // Both pipes drain at once, so that neither can fill up and stall fio.
            Task<string> errors = process.StandardError.ReadToEndAsync();
            process.StandardOutput.ReadToEnd();
            process.WaitForExit();
            if (process.ExitCode != 0 || !File.Exists(output))
            {
                Console.Error.WriteLine($"fio failed on {target} (exit {process.ExitCode}): {errors.GetAwaiter().GetResult().Trim()}");
                return null;
            }

            Keep(output, target, readWrite, blockSize);
            using JsonDocument document = JsonDocument.Parse(File.ReadAllText(output));
            JsonElement read = document.RootElement.GetProperty("jobs")[0].GetProperty("read");
            return new FioResult(read.GetProperty("iops").GetDouble(), "");
        }
        finally
        {
            File.Delete(output);
        }
    }

    private static void Keep(string output, string target, string readWrite, int blockSize)
    {
        if (Environment.GetEnvironmentVariable("FASTLOAD_FIO_OUTPUT") is { Length: > 0 } folder)
        {
            Directory.CreateDirectory(folder);
            // The parent folder names the set: every large file is called large.txt.
            string set = $"{Path.GetFileName(Path.GetDirectoryName(target))}-{Path.GetFileName(target)}";
            string name = string.Create(CultureInfo.InvariantCulture, $"{set}-{readWrite}-{blockSize}.json");
            File.Copy(output, Path.Combine(folder, name), overwrite: true);
        }
    }
}
