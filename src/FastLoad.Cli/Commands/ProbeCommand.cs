using System.CommandLine;
using System.Diagnostics;

namespace FastLoad.Cli.Commands;

/// <summary>
/// <c>fastload probe</c>: describes the device that holds a path, then loads the files under it cold at queue depths
/// 1, 2, 4, ... and recommends the smallest depth within 5% of the best throughput.
/// </summary>
internal static class ProbeCommand
{
    private const double WithinBest = 0.95;

    public static Command Create()
    {
        var path = new Argument<string>("path") { Description = "A folder (or file) on the device to probe." };
        var maxDepth = new Option<int>("--max-depth") { Description = "Deepest queue to try (powers of two up to it).", DefaultValueFactory = _ => 128 };
        var limit = new Option<int>("--limit") { Description = "Most files to load per depth.", DefaultValueFactory = _ => 10_000 };
        var command = new Command("probe", "Describe the storage device of a path and sweep the queue depth on its files, cold.") { path, maxDepth, limit };
        command.SetAction((parse, cancellationToken) => RunAsync(parse.GetValue(path)!, parse.GetValue(maxDepth), parse.GetValue(limit), cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(string path, int maxDepth, int limit, CancellationToken cancellationToken)
    {
        if (maxDepth < 1 || maxDepth > 1024 || limit < 1)
        {
            Console.Error.WriteLine("fastload: --max-depth must be 1-1024 and --limit at least 1.");
            return ExitCodes.Usage;
        }

        StorageDevice device;
        List<string> files;
        try
        {
            device = StorageProbe.Describe(path);
            files = (Directory.Exists(path) ? FileSet.FromDirectory(path) : FileSet.FromPaths([path])).EnumeratePaths().Take(limit).ToList();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            Console.Error.WriteLine($"fastload: {ex.Message}");
            return ExitCodes.SomeFailed;
        }

        Console.WriteLine($"device     {device}");
        Console.WriteLine($"prior      {device.Kind}{(device.Bus == StorageBus.Virtio ? " (a virtio disk's rotational flag is the hypervisor's default, so it is not trusted)" : string.Empty)}");
        if (files.Count == 0)
        {
            Console.WriteLine("No files under the path: nothing to sweep.");
            return ExitCodes.Success;
        }

        if (!PageCache.IsEvictionSupported)
        {
            Console.WriteLine("Warning: this OS cannot evict files from the page cache; the sweep measures a warm cache.");
        }

        Console.WriteLine($"sweep      {files.Count:N0} files, cold at each depth");
        Console.WriteLine();
        Console.WriteLine($"| {"depth",9} | {"files/s",9} | {"MB/s",8} |");
        Console.WriteLine("|----------:|----------:|---------:|");
        var throughput = new SortedDictionary<int, double>();
        for (int depth = 1; depth <= maxDepth; depth *= 2)
        {
            (LoadSummary summary, double seconds) = await LoadColdAsync(files, new FileLoaderOptions { MaxDegreeOfParallelism = depth }, cancellationToken);
            throughput[depth] = summary.FileCount / seconds;
            Console.WriteLine($"| {depth,9} | {summary.FileCount / seconds,9:N0} | {summary.ByteCount / seconds / 1e6,8:N1} |");
        }

        (LoadSummary automatic, double automaticSeconds) = await LoadColdAsync(files, new FileLoaderOptions(), cancellationToken);
        double best = throughput.Values.Max();
        int recommended = throughput.First(pair => pair.Value >= WithinBest * best).Key;
        Console.WriteLine($"| {"automatic",9} | {automatic.FileCount / automaticSeconds,9:N0} | {automatic.ByteCount / automaticSeconds / 1e6,8:N1} |");
        Console.WriteLine();
        Console.WriteLine($"recommended  {recommended} (the smallest depth within {1 - WithinBest:P0} of the best)");
        Console.WriteLine($"automatic    started at {automatic.InitialDegreeOfParallelism}, settled at {automatic.DegreeOfParallelism} ({string.Join(" -> ", automatic.ParallelismHistory)})");
        return ExitCodes.Success;
    }

    private static async Task<(LoadSummary Summary, double Seconds)> LoadColdAsync(List<string> files, FileLoaderOptions options, CancellationToken cancellationToken)
    {
        options.ErrorHandling = LoadErrorHandling.Collect;
        Shared.SyntheticFileSet.Evict(files);
        long start = Stopwatch.GetTimestamp();
        LoadSummary summary = await new FileLoader(options).LoadAsync(FileSet.FromPaths(files), (_, _) => ValueTask.CompletedTask, cancellationToken);
        return (summary, Stopwatch.GetElapsedTime(start).TotalSeconds);
    }
}
