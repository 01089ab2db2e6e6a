using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using FastLoad.Shared;

namespace FastLoad.Cli.Commands;

/// <summary>
/// Loads the same files cold with each method, side by side in rounds, each measurement in a new process of its own:
/// what start-up code pays is the first load in a fresh process, which a warm process hides. The child times that
/// first load, then a later one in the same process (cold again). Every method must read the same bytes; medians and
/// ratios to the first method are printed.
/// </summary>
internal static class Comparison
{
    /// <summary>The hidden command a comparison starts its children with.</summary>
    public const string ChildCommand = "measure-child";

    private const string NativeKey = "native";

    /// <param name="nativeReader">benchmarks/native/reference-reader, built; measured as one more method when given.</param>
    public static async Task<int> RunAsync(
        IReadOnlyList<string> paths, IReadOnlyList<LoadMethod> loadMethods, int rounds, bool json, string? nativeReader, CancellationToken cancellationToken)
    {
        List<Contender> methods = [.. loadMethods.Select(method => new Contender(method.Key, method.Name, list => Self(ChildCommand, method.Key, list)))];
        if (nativeReader is not null)
        {
            methods.Add(new Contender(
                NativeKey,
                $"Native reader (C, {ReferenceReader.DefaultThreads} threads)",
                list => Start(Path.GetFullPath(nativeReader), $"{ReferenceReader.DefaultThreads}", list)));
        }

        long expectedBytes = paths.Sum(path => new FileInfo(path).Length);
        TextWriter report = json ? Console.Error : Console.Out;
        report.WriteLine(PageCache.IsEvictionSupported
            ? "Cache: cold; every measurement starts with each file fsync'ed and evicted (posix_fadvise DONTNEED)."
            : "Cache: WARM; this OS cannot evict files from the page cache, so the numbers measure memory copies.");
        report.WriteLine($"Process: a new one per measurement; it times its first load, then a later load (cold again).");
        report.WriteLine($"Machine: {Environment.ProcessorCount} cores, {Environment.OSVersion}, .NET {Environment.Version}");
        report.WriteLine();

        string list = Path.Combine(Path.GetTempPath(), $"fastload-bench-{Environment.ProcessId}.txt");
        await File.WriteAllLinesAsync(list, paths, cancellationToken);
        try
        {
            var first = methods.ToDictionary(method => method.Key, _ => new List<double>());
            var later = methods.ToDictionary(method => method.Key, _ => new List<double>());
            for (int round = 1; round <= rounds; round++)
            {
                foreach (Contender method in methods)
                {
                    SyntheticFileSet.Evict(paths);
                    if (await MeasureInChildAsync(method, list, cancellationToken) is not { } measured)
                    {
                        return ExitCodes.SomeFailed;
                    }

                    if (measured.Bytes != expectedBytes)
                    {
                        Console.Error.WriteLine($"fastload: {method.Name} read {measured.Bytes:N0} bytes, expected {expectedBytes:N0}; did the files change?");
                        return ExitCodes.SomeFailed;
                    }

                    first[method.Key].Add(measured.FirstSeconds);
                    later[method.Key].Add(measured.LaterSeconds);
                }

                report.WriteLine($"round {round}/{rounds}, first load: " + string.Join(", ", methods.Select(m => $"{m.Key} {first[m.Key][^1] * 1000:F1} ms")));
            }

            var rows = methods.Select(m => new Row(m.Key, m.Name, Median(first[m.Key]), Median(later[m.Key]), first[m.Key].Min(), first[m.Key].Max())).ToList();
            if (json)
            {
                Console.WriteLine(JsonSerializer.Serialize(new Summary(paths.Count, expectedBytes, rounds, rows), ComparisonJson.Default.Summary));
            }
            else
            {
                PrintTable(rows, paths.Count, expectedBytes, rounds);
            }

            return ExitCodes.Success;
        }
        finally
        {
            File.Delete(list);
        }
    }

    /// <summary><c>measure-child</c>: in a process of its own, loads the listed files with one method, twice.</summary>
    public static async Task<int> RunChildAsync(string key, string list, CancellationToken cancellationToken)
    {
        if (LoadMethods.Find(key) is not { } method)
        {
            Console.Error.WriteLine($"fastload: no method '{key}'.");
            return ExitCodes.Usage;
        }

        string[] paths = await File.ReadAllLinesAsync(list, cancellationToken);
        long start = Stopwatch.GetTimestamp();
        long bytes = await method.Run(paths, cancellationToken);
        double first = Stopwatch.GetElapsedTime(start).TotalSeconds;

        SyntheticFileSet.Evict(paths);
        start = Stopwatch.GetTimestamp();
        long laterBytes = await method.Run(paths, cancellationToken);
        double later = Stopwatch.GetElapsedTime(start).TotalSeconds;
        if (laterBytes != bytes)
        {
            Console.Error.WriteLine($"fastload: {method.Name} read {bytes:N0} bytes, then {laterBytes:N0}; did the files change?");
            return ExitCodes.SomeFailed;
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{first:R} {later:R} {bytes}"));
        return ExitCodes.Success;
    }

    /// <summary>This tool again, with <paramref name="arguments"/>.</summary>
    private static ProcessStartInfo Self(params string[] arguments)
    {
        // Started as "dotnet fastload.dll": the child needs the assembly too.
        string entry = Environment.GetCommandLineArgs()[0];
        return Path.GetFileNameWithoutExtension(Environment.ProcessPath) == "dotnet" && entry.EndsWith(".dll", StringComparison.OrdinalIgnoreCase)
            ? Start(Environment.ProcessPath!, [entry, .. arguments])
            : Start(Environment.ProcessPath!, arguments);
    }

    private static ProcessStartInfo Start(string program, params string[] arguments)
    {
        var start = new ProcessStartInfo(program) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return start;
    }

    /// <summary>Runs one measurement; the child prints "first-seconds later-seconds bytes".</summary>
    private static async Task<Measured?> MeasureInChildAsync(Contender method, string list, CancellationToken cancellationToken)
    {
        Process child;
        try
        {
            child = Process.Start(method.Child(list))!;
        }
        catch (System.ComponentModel.Win32Exception ex)
        {
            Console.Error.WriteLine($"fastload: cannot start the process measuring {method.Name}: {ex.Message}");
            return null;
        }

        using var started = child;
        Task<string> error = child.StandardError.ReadToEndAsync(cancellationToken);
        string output = await child.StandardOutput.ReadToEndAsync(cancellationToken);
        await child.WaitForExitAsync(cancellationToken);
        string[] fields = output.Trim().Split(' ');
        if (child.ExitCode != 0 || fields.Length != 3)
        {
            Console.Error.WriteLine($"fastload: measuring {method.Name} failed (exit code {child.ExitCode}): {(await error).Trim()}");
            return null;
        }

        return new Measured(
            double.Parse(fields[0], CultureInfo.InvariantCulture),
            double.Parse(fields[1], CultureInfo.InvariantCulture),
            long.Parse(fields[2], CultureInfo.InvariantCulture));
    }

    private static void PrintTable(List<Row> rows, int files, long bytes, int rounds)
    {
        double baseline = rows[0].FirstSeconds;
        // The native reader, where measured, is the device's limit; the P/Invoke threads stand in for it otherwise.
        Row? reference = rows.Find(row => row.Key == NativeKey) ?? rows.Find(row => row.Key == LoadMethods.Reference.Key);
        Console.WriteLine();
        Console.WriteLine($"Medians of {rounds} cold rounds, {files:N0} files, {bytes / 1e6:N1} MB; each load in a new process:");
        Console.WriteLine();
        Console.WriteLine($"| {"Method",-52} | {"first load",10} | {"files/s",9} | {"vs first",8} | {"later load, files/s",19} | {"vs reference",12} |");
        Console.WriteLine(
            $"|{new string('-', 54)}|{new string('-', 11)}:|{new string('-', 10)}:|{new string('-', 9)}:|{new string('-', 20)}:|{new string('-', 13)}:|");
        foreach (Row row in rows)
        {
            string versusReference = reference is null ? "" : $"{reference.LaterSeconds / row.LaterSeconds:F2}x";
            Console.WriteLine(
                $"| {row.Name,-52} | {row.FirstSeconds * 1000,7:F1} ms | {files / row.FirstSeconds,9:N0} | "
                + $"{baseline / row.FirstSeconds,7:F2}x | {files / row.LaterSeconds,19:N0} | {versusReference,12} |");
        }

        Console.WriteLine();
        Console.WriteLine("first load: the first call in a new process, as start-up code makes it; later load: the next one in that process.");
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

    /// <summary>A method as the comparison runs it: a child process given the list of files.</summary>
    private sealed record Contender(string Key, string Name, Func<string, ProcessStartInfo> Child);

    private sealed record Measured(double FirstSeconds, double LaterSeconds, long Bytes);

    internal sealed record Row(string Key, string Name, double FirstSeconds, double LaterSeconds, double FirstMinSeconds, double FirstMaxSeconds);

    internal sealed record Summary(int Files, long Bytes, int Rounds, List<Row> Methods);
}

[System.Text.Json.Serialization.JsonSerializable(typeof(Comparison.Summary))]
[System.Text.Json.Serialization.JsonSourceGenerationOptions(PropertyNamingPolicy = System.Text.Json.Serialization.JsonKnownNamingPolicy.CamelCase)]
internal sealed partial class ComparisonJson : System.Text.Json.Serialization.JsonSerializerContext;
