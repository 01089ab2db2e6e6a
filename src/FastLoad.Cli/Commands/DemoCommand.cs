using System.CommandLine;
using System.Diagnostics;
using FastLoad.Shared;

namespace FastLoad.Cli.Commands;

/// <summary>
/// <c>fastload demo</c>: generates a deterministic set of small files, and loads it cold with the usual ways and with
/// FastLoad, side by side in rounds, printing medians and ratios to the sequential loop.
/// </summary>
internal static class DemoCommand
{
    private const int KiB = 1024;

    public static Command Create()
    {
        var count = new Option<int>("--files") { Description = "Number of files to generate.", DefaultValueFactory = _ => 10_000 };
        var minSize = new Option<int>("--min-size") { Description = "Smallest file, in bytes.", DefaultValueFactory = _ => 2 * KiB };
        var maxSize = new Option<int>("--max-size") { Description = "Largest file, in bytes.", DefaultValueFactory = _ => 128 * KiB };
        var rounds = new Option<int>("--rounds") { Description = "Rounds; each round runs every method once, cold. Medians are reported.", DefaultValueFactory = _ => 3 };
        var directory = new Option<string?>("--dir") { Description = "Where to generate the files (default: a new temporary folder, removed at the end)." };

        var command = new Command("demo", "Generate 10,000 files of 2-128 KiB and load them cold: sequential File.ReadAllBytes, Parallel.ForEachAsync, FastLoad.")
        {
            count, minSize, maxSize, rounds, directory,
        };
        command.SetAction((parse, cancellationToken) => RunAsync(
            parse.GetValue(count), parse.GetValue(minSize), parse.GetValue(maxSize), parse.GetValue(rounds), parse.GetValue(directory), cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(int count, int minSize, int maxSize, int rounds, string? directory, CancellationToken cancellationToken)
    {
        if (count < 1 || rounds < 1 || minSize < 0 || maxSize < minSize || maxSize > 256 * 1024 * 1024)
        {
            Console.Error.WriteLine("fastload: --files and --rounds must be at least 1, and 0 <= --min-size <= --max-size <= 256 MiB.");
            return ExitCodes.Usage;
        }

        bool temporary = directory is null;
        string root = directory ?? Path.Combine(Path.GetTempPath(), $"fastload-demo-{Environment.ProcessId}");
        try
        {
            Console.WriteLine($"Generating {count:N0} files of {minSize:N0}-{maxSize:N0} bytes in {root} ...");
            IReadOnlyList<string> paths = SyntheticFileSet.Create(root, count, minSize, maxSize);
            long expectedBytes = paths.Sum(path => new FileInfo(path).Length);
            bool cold = PageCache.IsEvictionSupported;
            Console.WriteLine(cold
                ? "Cache: cold; every method starts with each file fsync'ed and evicted (posix_fadvise DONTNEED)."
                : "Cache: WARM; this OS cannot evict files from the page cache, so the numbers measure memory copies.");
            Console.WriteLine($"Machine: {Environment.ProcessorCount} cores, {Environment.OSVersion}, .NET {Environment.Version}");
            Console.WriteLine();

            LoadMethod[] methods = LoadMethods.Demo;
            var seconds = methods.ToDictionary(method => method.Name, _ => new List<double>());
            for (int round = 1; round <= rounds; round++)
            {
                foreach (LoadMethod method in methods)
                {
                    SyntheticFileSet.Evict(paths);
                    long start = Stopwatch.GetTimestamp();
                    long bytes = await method.Run(paths, cancellationToken);
                    double elapsed = Stopwatch.GetElapsedTime(start).TotalSeconds;
                    if (bytes != expectedBytes)
                    {
                        Console.Error.WriteLine($"fastload: {method.Name} read {bytes:N0} bytes, expected {expectedBytes:N0}.");
                        return ExitCodes.SomeFailed;
                    }

                    seconds[method.Name].Add(elapsed);
                }

                Console.WriteLine($"round {round}/{rounds}: " + string.Join(", ", methods.Select(m => $"{m.Name} {seconds[m.Name][^1]:F3} s")));
            }

            Console.WriteLine();
            PrintTable(methods, seconds, count, expectedBytes, rounds);
            return ExitCodes.Success;
        }
        finally
        {
            if (temporary && Directory.Exists(root))
            {
                Directory.Delete(root, recursive: true);
            }
        }
    }

    private static void PrintTable(LoadMethod[] methods, Dictionary<string, List<double>> seconds, int count, long bytes, int rounds)
    {
        double baseline = Median(seconds[methods[0].Name]);
        Console.WriteLine($"Median of {rounds} cold rounds, {count:N0} files, {bytes / 1e6:N1} MB:");
        Console.WriteLine();
        Console.WriteLine($"| {"Method",-44} | {"files/s",9} | {"MB/s",8} | {"vs sequential",13} |");
        Console.WriteLine($"|{new string('-', 46)}|{new string('-', 10)}:|{new string('-', 9)}:|{new string('-', 14)}:|");
        foreach (LoadMethod method in methods)
        {
            double median = Median(seconds[method.Name]);
            Console.WriteLine($"| {method.Name,-44} | {count / median,9:N0} | {bytes / median / 1e6,8:N1} | {baseline / median,12:F2}x |");
        }
    }

    private static double Median(List<double> values)
    {
        double[] sorted = [.. values.Order()];
        int middle = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
