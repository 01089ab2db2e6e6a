using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using FastLoad.Shared;

namespace FastLoad.Cli.Commands;

/// <summary>
/// Loads the same files with each method, side by side in rounds, each measurement in a new process of its own: what
/// start-up code pays is the first load in a fresh process, which a warm process hides. Every method is measured twice
/// a round: cold (each file evicted from the page cache first: a reboot, a new node) and then warm (the files cached,
/// as most restarts find them). The child times that first load, then a later one in the same process, cold again or
/// warm again. Every method must read the same bytes; medians and ratios to the first method are printed.
/// </summary>
internal static class Comparison
{
    /// <summary>The hidden command a comparison starts its children with.</summary>
    public const string ChildCommand = "measure-child";

    /// <summary>The child's option that keeps the files cached between its two loads.</summary>
    public const string WarmOption = "--warm";

    private const string NativeKey = "native";
    private const string NativePerCoreKey = "native-cores";

    /// <param name="nativeReader">
    /// benchmarks/native/reference-reader, built; measured as two more methods when given: with 64 threads (the
    /// device's limit cold) and with one thread per core (the machine's limit warm).
    /// </param>
    public static async Task<int> RunAsync(
        IReadOnlyList<string> paths, IReadOnlyList<LoadMethod> loadMethods, int rounds, bool json, string? nativeReader, CancellationToken cancellationToken)
    {
        List<Contender> methods = [.. loadMethods.Select(method => new Contender(
            method.Key, method.Name, (list, warm) => Self([ChildCommand, method.Key, list, .. warm ? [WarmOption] : Array.Empty<string>()])))];
        if (nativeReader is not null)
        {
            string reader = Path.GetFullPath(nativeReader);
            foreach ((string key, int threads) in new[] { (NativeKey, ReferenceReader.DefaultThreads), (NativePerCoreKey, Environment.ProcessorCount) })
            {
                methods.Add(new Contender(key, $"Native reader (C, {threads} threads)", (list, warm) => Start(reader, [$"{threads}", list, .. warm ? ["warm"] : Array.Empty<string>()])));
            }
        }

        long expectedBytes = paths.Sum(ContentLength);
        TextWriter report = json ? Console.Error : Console.Out;
        report.WriteLine(PageCache.IsEvictionSupported
            ? "Cache: cold, each file fsync'ed and evicted (posix_fadvise DONTNEED) before the measurement; then warm, the files cached."
            : "Cache: WARM only; this OS cannot evict files from the page cache, so both columns measure cached files.");
        report.WriteLine("Process: a new one per measurement; it times its first load, then a later load (cold again, or warm again).");
        report.WriteLine($"Machine: {Environment.ProcessorCount} cores, {Environment.OSVersion}, .NET {Environment.Version}");
        report.WriteLine();

        string list = Path.Combine(Path.GetTempPath(), $"fastload-bench-{Environment.ProcessId}.txt");
        await File.WriteAllLinesAsync(list, paths, cancellationToken);
        try
        {
            var times = methods.ToDictionary(method => method.Key, _ => new Timings());
            for (int round = 1; round <= rounds; round++)
            {
                foreach (Contender method in methods)
                {
                    foreach (bool warm in (bool[])[false, true])
                    {
                        if (!warm)
                        {
                            // A file gone since the listing is left for the child to report (and the byte count to catch).
                            _ = SyntheticFileSet.EvictPresent(paths);
                        }

                        if (await MeasureInChildAsync(method, list, warm, cancellationToken) is not { } measured)
                        {
                            return ExitCodes.SomeFailed;
                        }

                        if (measured.Bytes != expectedBytes)
                        {
                            Console.Error.WriteLine($"fastload: {method.Name} read {measured.Bytes:N0} bytes, expected {expectedBytes:N0}; did the files change?");
                            return ExitCodes.SomeFailed;
                        }

                        times[method.Key].Add(warm, measured);
                    }
                }

                report.WriteLine($"round {round}/{rounds}, first load cold / warm: "
                    + string.Join(", ", methods.Select(m => $"{m.Key} {times[m.Key].Cold.First[^1] * 1000:F1} / {times[m.Key].Warm.First[^1] * 1000:F1} ms")));
            }

            List<Row> rows = [.. methods.Select(m => times[m.Key].Row(m.Key, m.Name))];
            if (json)
            {
                Console.WriteLine(JsonSerializer.Serialize(new Summary(paths.Count, expectedBytes, rounds, rows), ComparisonJson.Relaxed.Summary));
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
    /// <param name="key">The method.</param>
    /// <param name="list">A file with one path per line.</param>
    /// <param name="warm">Keep the files cached between the two loads; otherwise evict them (the parent evicts before the first).</param>
    /// <param name="listAssemblies">Print on standard error the assemblies the first load loaded (what a new process pays for).</param>
    /// <param name="cancellationToken">Stops the loads.</param>
    public static async Task<int> RunChildAsync(string key, string list, bool warm, bool listAssemblies, CancellationToken cancellationToken)
    {
        if (LoadMethods.Find(key) is not { } method)
        {
            Console.Error.WriteLine($"fastload: no method '{key}'.");
            return ExitCodes.Usage;
        }

        string[] paths = await File.ReadAllLinesAsync(list, cancellationToken);
        int loadedBefore = listAssemblies ? AppDomain.CurrentDomain.GetAssemblies().Length : 0;
        long start = Stopwatch.GetTimestamp();
        long bytes;
        try
        {
            bytes = await method.Run(paths, cancellationToken);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return FilesChanged(ex);
        }

        double first = Stopwatch.GetElapsedTime(start).TotalSeconds;
        if (listAssemblies)
        {
            // GetAssemblies lists in load order: what follows the first count came with the first load.
            IEnumerable<string?> loaded = AppDomain.CurrentDomain.GetAssemblies().Skip(loadedBefore).Select(assembly => assembly.GetName().Name);
            Console.Error.WriteLine($"assemblies loaded by the first load: {string.Join(", ", loaded)}");
        }

        if (!warm)
        {
            _ = SyntheticFileSet.EvictPresent(paths);
        }

        start = Stopwatch.GetTimestamp();
        long laterBytes;
        try
        {
            laterBytes = await method.Run(paths, cancellationToken);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return FilesChanged(ex);
        }

        double later = Stopwatch.GetElapsedTime(start).TotalSeconds;
        if (laterBytes != bytes)
        {
            Console.Error.WriteLine($"fastload: {method.Name} read {bytes:N0} bytes, then {laterBytes:N0}; did the files change?");
            return ExitCodes.SomeFailed;
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{first:R} {later:R} {bytes}"));
        return ExitCodes.Success;
    }

    /// <summary>A listed file could not be read: the comparison needs the same files for every method, so it stops, saying which.</summary>
    private static int FilesChanged(Exception ex)
    {
        Console.Error.WriteLine($"fastload: {ex.Message} (did the files change during the comparison?)");
        return ExitCodes.SomeFailed;
    }

    /// <summary>This tool again, with <paramref name="arguments"/>.</summary>
    private static ProcessStartInfo Self(string[] arguments)
    {
        // Started as "dotnet fastload.dll": the child needs the assembly too.
        string entry = Environment.GetCommandLineArgs()[0];
        return Path.GetFileNameWithoutExtension(Environment.ProcessPath) == "dotnet" && entry.EndsWith(".dll", StringComparison.OrdinalIgnoreCase)
            ? Start(Environment.ProcessPath!, [entry, .. arguments])
            : Start(Environment.ProcessPath!, arguments);
    }

    private static ProcessStartInfo Start(string program, string[] arguments)
    {
        var start = new ProcessStartInfo(program) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return start;
    }

    /// <summary>Runs one measurement; the child prints "first-seconds later-seconds bytes".</summary>
    private static async Task<Measured?> MeasureInChildAsync(Contender method, string list, bool warm, CancellationToken cancellationToken)
    {
        Process child;
        try
        {
            child = Process.Start(method.Child(list, warm))!;
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
        Row baseline = rows[0];
        Console.WriteLine();
        Console.WriteLine($"Medians of {rounds} rounds, {files:N0} files, {bytes / 1e6:N1} MB; each load in a new process:");
        Console.WriteLine();
        Console.WriteLine($"| {"Method",-52} | {"cold first load",15} | {"vs first",8} | {"warm first load",15} | {"vs first",8} | {"later, cold",11} | {"later, warm",11} |");
        Console.WriteLine(
            $"|{new string('-', 54)}|{new string('-', 16)}:|{new string('-', 9)}:|{new string('-', 16)}:|{new string('-', 9)}:|{new string('-', 12)}:|{new string('-', 12)}:|");
        foreach (Row row in rows)
        {
            Console.WriteLine(
                $"| {row.Name,-52} | {row.FirstSeconds * 1000,12:F1} ms | {baseline.FirstSeconds / row.FirstSeconds,7:F2}x | "
                + $"{row.WarmFirstSeconds * 1000,12:F1} ms | {baseline.WarmFirstSeconds / row.WarmFirstSeconds,7:F2}x | "
                + $"{row.LaterSeconds * 1000,8:F1} ms | {row.WarmLaterSeconds * 1000,8:F1} ms |");
        }

        Console.WriteLine();
        Console.WriteLine("first load: the first call in a new process, as start-up code makes it; later: the next one in that process.");

        // The device's limit cold is the native reader with 64 threads (or the P/Invoke threads where it is not built);
        // the machine's limit warm is the native reader with a thread per core.
        Row? fastLoad = rows.Find(row => row.Key == LoadMethods.FastLoadAutomatic.Key);
        Row? cold = rows.Find(row => row.Key == NativeKey) ?? rows.Find(row => row.Key == LoadMethods.Reference.Key);
        Row? warm = rows.Find(row => row.Key == NativePerCoreKey);
        if (fastLoad is not null && cold is not null)
        {
            Console.WriteLine(
                $"FastLoad against {cold.Name}: cold first load {cold.FirstSeconds / fastLoad.FirstSeconds:F2}x, later {cold.LaterSeconds / fastLoad.LaterSeconds:F2}x.");
        }

        if (fastLoad is not null && warm is not null)
        {
            Console.WriteLine(
                $"FastLoad against {warm.Name}: warm first load {warm.WarmFirstSeconds / fastLoad.WarmFirstSeconds:F2}x, later {warm.WarmLaterSeconds / fastLoad.WarmLaterSeconds:F2}x.");
        }
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

    /// <summary>The bytes a load of <paramref name="path"/> reads: a symbolic link's target's, not the link's own.</summary>
    private static long ContentLength(string path)
    {
        var file = new FileInfo(path);
        if (!file.Exists)
        {
            return 0; // Gone since the listing: the first measurement reports it.
        }

        return file.LinkTarget is null ? file.Length : (file.ResolveLinkTarget(returnFinalTarget: true) as FileInfo)?.Length ?? 0;
    }

    /// <summary>The median of some timings: the middle one, or the mean of the middle two.</summary>
    internal static double Median(List<double> values)
    {
        double[] sorted = [.. values.Order()];
        int middle = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /// <summary>A method as the comparison runs it: a child process given the list of files, and whether they stay cached.</summary>
    private sealed record Contender(string Key, string Name, Func<string, bool, ProcessStartInfo> Child);

    private sealed record Measured(double FirstSeconds, double LaterSeconds, long Bytes);

    /// <summary>One cache state's first and later loads of one method, over the rounds.</summary>
    private sealed class Series
    {
        public List<double> First { get; } = [];

        public List<double> Later { get; } = [];
    }

    private sealed class Timings
    {
        public Series Cold { get; } = new();

        public Series Warm { get; } = new();

        public void Add(bool warm, Measured measured)
        {
            Series series = warm ? Warm : Cold;
            series.First.Add(measured.FirstSeconds);
            series.Later.Add(measured.LaterSeconds);
        }

        public Row Row(string key, string name) => new(
            key,
            name,
            Median(Cold.First),
            Median(Cold.Later),
            Cold.First.Min(),
            Cold.First.Max(),
            Median(Warm.First),
            Median(Warm.Later),
            Warm.First.Min(),
            Warm.First.Max());
    }

    /// <summary>A method's medians: cold first and later loads (with the first's range), and the same warm.</summary>
    internal sealed record Row(
        string Key,
        string Name,
        double FirstSeconds,
        double LaterSeconds,
        double FirstMinSeconds,
        double FirstMaxSeconds,
        double WarmFirstSeconds,
        double WarmLaterSeconds,
        double WarmFirstMinSeconds,
        double WarmFirstMaxSeconds);

    internal sealed record Summary(int Files, long Bytes, int Rounds, List<Row> Methods);
}

[System.Text.Json.Serialization.JsonSerializable(typeof(Comparison.Summary))]
[System.Text.Json.Serialization.JsonSourceGenerationOptions(PropertyNamingPolicy = System.Text.Json.Serialization.JsonKnownNamingPolicy.CamelCase)]
internal sealed partial class ComparisonJson : System.Text.Json.Serialization.JsonSerializerContext
{
    /// <summary>Prints method names as written ("+", not "\u002B"), as <c>load --json</c> does: the output is read, not embedded in HTML.</summary>
    public static ComparisonJson Relaxed { get; } =
        new(new JsonSerializerOptions { PropertyNamingPolicy = JsonNamingPolicy.CamelCase, Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping });
}
