using System.Diagnostics;
using FastLoad.Shared;

namespace FastLoad.Cli.Commands;

/// <summary>
/// Loads the same files cold with each method, side by side in rounds (the order of methods is the same in every
/// round), checks every method read the same bytes, and prints medians and ratios to the first method.
/// </summary>
internal static class Comparison
{
    public static async Task<int> RunAsync(IReadOnlyList<string> paths, IReadOnlyList<LoadMethod> methods, int rounds, CancellationToken cancellationToken)
    {
        long expectedBytes = paths.Sum(path => new FileInfo(path).Length);
        Console.WriteLine(PageCache.IsEvictionSupported
            ? "Cache: cold; every method starts with each file fsync'ed and evicted (posix_fadvise DONTNEED)."
            : "Cache: WARM; this OS cannot evict files from the page cache, so the numbers measure memory copies.");
        Console.WriteLine($"Machine: {Environment.ProcessorCount} cores, {Environment.OSVersion}, .NET {Environment.Version}");
        Console.WriteLine();

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
                    Console.Error.WriteLine($"fastload: {method.Name} read {bytes:N0} bytes, expected {expectedBytes:N0}; did the files change?");
                    return ExitCodes.SomeFailed;
                }

                seconds[method.Name].Add(elapsed);
            }

            Console.WriteLine($"round {round}/{rounds}: " + string.Join(", ", methods.Select(m => $"{m.Name} {seconds[m.Name][^1]:F3} s")));
        }

        Console.WriteLine();
        double baseline = Median(seconds[methods[0].Name]);
        Console.WriteLine($"Median of {rounds} cold rounds, {paths.Count:N0} files, {expectedBytes / 1e6:N1} MB:");
        Console.WriteLine();
        Console.WriteLine($"| {"Method",-44} | {"files/s",9} | {"MB/s",8} | {"vs first",9} |");
        Console.WriteLine($"|{new string('-', 46)}|{new string('-', 10)}:|{new string('-', 9)}:|{new string('-', 10)}:|");
        foreach (LoadMethod method in methods)
        {
            double median = Median(seconds[method.Name]);
            Console.WriteLine($"| {method.Name,-44} | {paths.Count / median,9:N0} | {expectedBytes / median / 1e6,8:N1} | {baseline / median,8:F2}x |");
        }

        return ExitCodes.Success;
    }

    /// <summary>
    /// Up to <paramref name="limit"/> files of the set that can be read, each evicted on the way (the naive methods of
    /// a comparison stop at the first unreadable file, and a sweep is about speed, so such files are left out); or
    /// <see langword="null"/>, with the reason printed, when the set cannot be listed.
    /// </summary>
    internal static List<string>? TryListReadable(FileSet files, int limit)
    {
        try
        {
            return SyntheticFileSet.EvictReadable(files.EnumeratePaths()).Take(limit).ToList();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            Console.Error.WriteLine($"fastload: {ex.Message}");
            return null;
        }
    }

    /// <summary>The median of some timings: the middle one, or the mean of the middle two.</summary>
    internal static double Median(List<double> values)
    {
        double[] sorted = [.. values.Order()];
        int middle = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
