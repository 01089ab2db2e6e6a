using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using FastLoad.Shared;

namespace FastLoad.Cli.Commands;

/// <summary>
/// <c>fastload probe</c>: describes the device that holds a path, then loads the files under it cold at queue depths
/// 1, 2, 4, ..., each in the order of the set and in physical order, and automatically, and recommends the smallest
/// depth within 5% of the best throughput. On a disk that seeks, order and depth both count: physical order spares a
/// drive without command queuing its seeks, a deep queue lets a queuing drive pick by rotation. Each round runs every
/// setting once, starting one further along each time, so that a shared machine's drift and the position in the round
/// cancel out; medians are reported.
/// </summary>
internal static class ProbeCommand
{
    private const double WithinBest = 0.95;

    private static readonly Setting Automatic = new(null, PhysicalOrder.Auto);

    public static Command Create()
    {
        var path = new Argument<string>("path") { Description = "A folder (or file) on the device to probe." }.MustExist();
        var maxDepth = new Option<int>("--max-depth") { Description = "Deepest queue to try (powers of two up to it).", DefaultValueFactory = _ => 128 };
        var limit = new Option<int>("--limit") { Description = "Most files to load per depth.", DefaultValueFactory = _ => 10_000 };
        var rounds = new Option<int>("--rounds")
        {
            Description = "Rounds; each loads the files cold at every depth and automatically. Medians are reported.",
            DefaultValueFactory = _ => 3,
        };
        var budget = new Option<long?>("--budget")
        {
            Description = "Memory budget in bytes (default: from the machine's memory). It bounds the files in flight whatever the depth.",
        };
        var command = new Command("probe", "Describe the storage device of a path and sweep the queue depth on its files, cold.")
        {
            path, maxDepth, limit, rounds, budget,
        };
        command.SetAction((parse, cancellationToken) => RunAsync(
            parse.GetValue(path)!, parse.GetValue(maxDepth), parse.GetValue(limit), parse.GetValue(rounds), parse.GetValue(budget), cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(string path, int maxDepth, int limit, int rounds, long? budget, CancellationToken cancellationToken)
    {
        if (maxDepth < 1 || maxDepth > 1024 || limit < 1 || rounds < 1 || budget < 1)
        {
            Console.Error.WriteLine("fastload: --max-depth must be 1-1024, --limit, --rounds and --budget at least 1.");
            return ExitCodes.Usage;
        }

        long memoryBudget = budget ?? new FileLoaderOptions().MemoryBudget;

        StorageDevice device;
        try
        {
            device = StorageProbe.Describe(path);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            Console.Error.WriteLine($"fastload: {ex.Message}");
            return ExitCodes.SomeFailed;
        }

        // Files that cannot be read (a FIFO, no permission) are left out: the sweep measures speed.
        if (Comparison.TryListReadable(Directory.Exists(path) ? FileSet.FromDirectory(path) : FileSet.FromPaths([path]), limit) is not { } files)
        {
            return ExitCodes.SomeFailed;
        }

        Console.WriteLine($"device     {device}");
        string untrusted = device.Bus == StorageBus.Virtio
            ? " (a virtio disk's rotational flag is the hypervisor's default, so it is not trusted)"
            : string.Empty;
        Console.WriteLine($"prior      {device.Kind}{untrusted}");
        if (files.Count == 0)
        {
            Console.WriteLine("No files under the path: nothing to sweep.");
            return ExitCodes.Success;
        }

        if (!PageCache.IsEvictionSupported)
        {
            Console.WriteLine("Warning: this OS cannot evict files from the page cache; the sweep measures a warm cache.");
        }

        Console.WriteLine(
            $"sweep      {files.Count:N0} files, cold at each depth, {rounds} round{(rounds == 1 ? string.Empty : "s")}, "
            + $"memory budget {memoryBudget / (1024 * 1024):N0} MiB");
        var settings = new List<Setting>();
        for (int depth = 1; depth <= maxDepth; depth *= 2)
        {
            settings.Add(new Setting(depth, PhysicalOrder.Off));
            settings.Add(new Setting(depth, PhysicalOrder.On));
        }

        settings.Add(Automatic);
        var seconds = settings.ToDictionary(setting => setting, _ => new List<double>());
        var automaticRuns = new List<LoadSummary>();
        long bytes = 0;
        int changed = 0;
        for (int round = 0; round < rounds; round++)
        {
            foreach (Setting setting in settings.Skip(round % settings.Count).Concat(settings.Take(round % settings.Count)))
            {
                var options = new FileLoaderOptions { MaxDegreeOfParallelism = setting.Depth, PhysicalOrder = setting.Order, MemoryBudget = memoryBudget };
                (LoadSummary summary, double elapsed) = await LoadColdAsync(files, options, cancellationToken);
                seconds[setting].Add(elapsed);
                bytes = summary.ByteCount;
                changed = Math.Max(changed, summary.Failures.Count);
                if (setting == Automatic)
                {
                    automaticRuns.Add(summary);
                }
            }
        }

        var median = seconds.ToDictionary(pair => pair.Key, pair => Comparison.Median(pair.Value));
        double bestSeconds = median.Where(pair => pair.Key != Automatic).Min(pair => pair.Value);
        Console.WriteLine();
        Console.WriteLine($"| {"depth",9} | {"order",-8} | {"median ms",9} | {"files/s",9} | {"MB/s",8} | {"vs best",7} |");
        Console.WriteLine("|----------:|:---------|----------:|----------:|---------:|--------:|");
        foreach ((Setting setting, double elapsed) in median)
        {
            string name = setting.Depth?.ToString(CultureInfo.InvariantCulture) ?? "automatic";
            Console.WriteLine(
                $"| {name,9} | {setting.OrderName,-8} | {elapsed * 1000,9:N0} | {files.Count / elapsed,9:N0} | {bytes / elapsed / 1e6,8:N1} | "
                + $"{bestSeconds / elapsed,7:P0} |");
        }

        if (changed > 0)
        {
            // A build, log or temporary folder changes while it is measured: the files that went are skipped, not fatal.
            Console.WriteLine($"changed    {changed:N0} of the {files.Count:N0} files vanished or could not be read during the sweep; they were skipped");
        }

        Setting recommended = median
            .Where(pair => pair.Key != Automatic && bestSeconds / pair.Value >= WithinBest)
            .OrderBy(pair => pair.Key.Depth)
            .ThenBy(pair => pair.Value)
            .First().Key;
        Console.WriteLine();
        Console.WriteLine($"recommended  {recommended.Depth} in {recommended.OrderName} order (the smallest depth within {1 - WithinBest:P0} of the best)");
        string settled = string.Join(", ", automaticRuns.Select(run => run.DegreeOfParallelism));
        Console.WriteLine(
            $"automatic    {bestSeconds / median[Automatic]:P0} of the best fixed depth; started at {automaticRuns[0].InitialDegreeOfParallelism}, "
            + $"settled at {settled} in the {rounds} round{(rounds == 1 ? string.Empty : "s")}");
        return ExitCodes.Success;
    }

    private static async Task<(LoadSummary Summary, double Seconds)> LoadColdAsync(
        List<string> files, FileLoaderOptions options, CancellationToken cancellationToken)
    {
        // A file that vanished since the listing fails its load, which collects the failure: the sweep goes on.
        options.ErrorHandling = LoadErrorHandling.Collect;
        _ = SyntheticFileSet.EvictPresent(files);
        long start = Stopwatch.GetTimestamp();
        LoadSummary summary = await new FileLoader(options).LoadAsync(FileSet.FromPaths(files), (_, _) => ValueTask.CompletedTask, cancellationToken);
        return (summary, Stopwatch.GetElapsedTime(start).TotalSeconds);
    }

    /// <summary>One setting of the sweep: a fixed depth in set or physical order, or the automatic choice.</summary>
    private sealed record Setting(int? Depth, PhysicalOrder Order)
    {
        public string OrderName => Order switch
        {
            PhysicalOrder.On => "physical",
            PhysicalOrder.Off => "set",
            _ => "auto",
        };
    }
}
