using System.CommandLine;
using System.Diagnostics;
using System.Text.Encodings.Web;
using System.Text.Json;
using FastLoad.Shared;

namespace FastLoad.Cli.Commands;

/// <summary><c>fastload load</c>: load files and folders, optionally cold, and report what it took.</summary>
internal static class LoadCommand
{
    public static Command Create()
    {
        var paths = new Argument<string[]>("paths") { Description = "Files and folders to load.", Arity = ArgumentArity.OneOrMore }.MustExist();
        var pattern = new Option<string>("--pattern") { Description = "File name pattern for folders (* and ?).", DefaultValueFactory = _ => "*" };
        var recursive = new Option<bool>("--recursive", "-r") { Description = "Include the subfolders of folders." };
        var dop = new Option<int?>("--dop") { Description = "Files read at once (default: automatic)." };
        var budget = new Option<long?>("--budget") { Description = "Memory budget in bytes (default: from the machine's memory)." };
        var physicalOrder = new Option<PhysicalOrder>("--physical-order")
        {
            Description = "Read files in the order of their place on the device: Auto (on a spinning disk), On or Off.",
            DefaultValueFactory = _ => PhysicalOrder.Auto,
        };
        var cold = new Option<bool>("--cold")
        {
            Description = "Evict every file from the page cache first (Linux: fsync + posix_fadvise DONTNEED; no root needed).",
        };
        var json = new Option<bool>("--json") { Description = "Print one JSON object instead of text." };
        var checksum = new Option<bool>("--checksum") { Description = "Report a SHA-256 checksum of the loaded contents, independent of order." };

        var command = new Command("load", "Load files and folders into memory and report files, bytes, time and failures.")
        {
            paths, pattern, recursive, dop, budget, physicalOrder, cold, json, checksum,
        };
        command.SetAction((parse, cancellationToken) => RunAsync(
            parse.GetValue(paths)!,
            parse.GetValue(pattern)!,
            parse.GetValue(recursive),
            parse.GetValue(dop),
            parse.GetValue(budget),
            parse.GetValue(physicalOrder),
            parse.GetValue(cold),
            parse.GetValue(json),
            parse.GetValue(checksum),
            cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(
        string[] paths,
        string pattern,
        bool recursive,
        int? dop,
        long? budget,
        PhysicalOrder physicalOrder,
        bool cold,
        bool json,
        bool checksum,
        CancellationToken cancellationToken)
    {
        var options = new FileLoaderOptions { MaxDegreeOfParallelism = dop, PhysicalOrder = physicalOrder, ErrorHandling = LoadErrorHandling.Collect };
        if (budget is long bytes)
        {
            options.MemoryBudget = bytes;
        }

        FileLoader loader;
        try
        {
            loader = new FileLoader(options);
        }
        catch (ArgumentException ex)
        {
            Console.Error.WriteLine($"fastload: {ex.Message}");
            return ExitCodes.Usage;
        }

        if (paths is [string only] && only.EndsWith(".fpk", StringComparison.OrdinalIgnoreCase) && File.Exists(only))
        {
            return await LoadPackAsync(only, options.MemoryBudget, cold, json, checksum, cancellationToken);
        }

        FileSet files = FileSet.Concat(paths.Select(path =>
            Directory.Exists(path) ? FileSet.FromDirectory(path, pattern, recursive) : FileSet.FromPaths([path])));

        // Listed once, before the clock starts, for eviction and the progress bar; the timed load enumerates for itself.
        bool progress = LoadProgress.IsWanted(json);
        List<string> listed = cold || progress ? ListQuietly(files) : [];
        string coldNote = cold ? Evict(listed) : "warm (page cache as found)";
        var sums = checksum ? new LoadChecksum() : null;

        long start = Stopwatch.GetTimestamp();
        LoadSummary summary;
        try
        {
            Task<LoadSummary> Load(Action<long>? loaded) => loader.LoadAsync(
                files,
                (file, _) =>
                {
                    sums?.Add(file.Sequence);
                    loaded?.Invoke(file.Length);
                    return ValueTask.CompletedTask;
                },
                cancellationToken);

            summary = progress
                ? await LoadProgress.RunAsync(listed.Count, loaded => Load(loaded))
                : await Load(null);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            Console.Error.WriteLine($"fastload: {ex.Message}");
            return ExitCodes.SomeFailed;
        }

        double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        var report = new Report(
            summary.FileCount, summary.ByteCount, summary.Failures, summary.DegreeOfParallelism, summary.InitialDegreeOfParallelism,
            summary.ParallelismHistory, summary.Storage?.ToString() ?? "unknown", seconds, coldNote, sums?.Finish());
        return Write(report, json);
    }

    /// <summary>Loads every entry of a pack (sequential reads, parallel decode), with the same report and checksum as loose files.</summary>
    private static async Task<int> LoadPackAsync(string path, long budget, bool cold, bool json, bool checksum, CancellationToken cancellationToken)
    {
        string coldNote = cold ? Evict([path]) : "warm (page cache as found)";
        var sums = checksum ? new LoadChecksum() : null;
        long start = Stopwatch.GetTimestamp();
        int files = 0;
        long bytes = 0;
        int readsInFlight;
        try
        {
            await using PackReader pack = await PackReader.OpenAsync(path, new PackReaderOptions { MemoryBudget = budget }, cancellationToken);
            readsInFlight = pack.ReadsInFlight;
            await foreach (LoadedFile entry in pack.LoadAllAsync(cancellationToken))
            {
                using (entry)
                {
                    sums?.Add(entry.Sequence);
                    files++;
                    bytes += entry.Length;
                }
            }
        }
        catch (Exception ex) when (ex is IOException or InvalidDataException or UnauthorizedAccessException)
        {
            Console.Error.WriteLine($"fastload: {ex.Message}");
            return ExitCodes.SomeFailed;
        }

        double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        string storage = StorageProbe.Describe(path).ToString();
        return Write(new Report(files, bytes, [], readsInFlight, readsInFlight, [readsInFlight], storage, seconds, coldNote, sums?.Finish()), json);
    }

    private static int Write(Report report, bool json)
    {
        if (json)
        {
            WriteJson(report);
        }
        else
        {
            WriteText(report);
        }

        return report.Failures.Count == 0 ? ExitCodes.Success : ExitCodes.SomeFailed;
    }

    private static string Evict(IEnumerable<string> paths)
    {
        if (!PageCache.IsEvictionSupported)
        {
            return "warm: evicting from the page cache is not supported on this OS";
        }

        // A file that cannot be evicted is left for the load to report.
        _ = SyntheticFileSet.EvictReadable(paths).Count();
        return "cold (fsync + posix_fadvise DONTNEED per file)";
    }

    /// <summary>The set's paths, or none when it cannot be enumerated (the load then reports why).</summary>
    private static List<string> ListQuietly(FileSet files)
    {
        try
        {
            return files.EnumeratePaths().ToList();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }

    private static void WriteText(Report report)
    {
        (int files, long bytes, IReadOnlyList<LoadFailure> failures, int dop, int initialDop, IReadOnlyList<int> history,
            string storage, double seconds, string cache, string? checksum) = report;
        Console.WriteLine($"files      {files:N0}");
        Console.WriteLine($"bytes      {bytes:N0}");
        Console.WriteLine($"failed     {failures.Count:N0}");
        Console.WriteLine($"seconds    {seconds:F3}");
        Console.WriteLine($"files/s    {files / seconds:N0}");
        Console.WriteLine($"MB/s       {bytes / seconds / 1e6:N1}");
        Console.WriteLine($"parallel   {dop} (started at {initialDop}: {string.Join(" -> ", history)})");
        Console.WriteLine($"storage    {storage}");
        Console.WriteLine($"cache      {cache}");
        if (checksum is not null)
        {
            Console.WriteLine($"checksum   {checksum}");
        }

        foreach (LoadFailure failure in failures)
        {
            Console.Error.WriteLine($"error: {failure.Exception.Message}");
        }
    }

    private static void WriteJson(Report report)
    {
        (int files, long bytes, IReadOnlyList<LoadFailure> failures, int dop, int initialDop, IReadOnlyList<int> history,
            string storage, double seconds, string cache, string? checksum) = report;
        using var stream = Console.OpenStandardOutput();
        // Read by people and scripts, never embedded in HTML: '->' and '+' stay as they are rather than \u003E and \u002B.
        using (var writer = new Utf8JsonWriter(stream, new JsonWriterOptions { Indented = true, Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping }))
        {
            writer.WriteStartObject();
            writer.WriteNumber("files", files);
            writer.WriteNumber("bytes", bytes);
            writer.WriteNumber("failed", failures.Count);
            writer.WriteNumber("seconds", Math.Round(seconds, 6));
            writer.WriteNumber("degreeOfParallelism", dop);
            writer.WriteNumber("initialDegreeOfParallelism", initialDop);
            writer.WriteStartArray("parallelismHistory");
            foreach (int limit in history)
            {
                writer.WriteNumberValue(limit);
            }

            writer.WriteEndArray();
            writer.WriteString("storage", storage);
            writer.WriteString("cache", cache);
            if (checksum is not null)
            {
                writer.WriteString("checksum", checksum);
            }

            writer.WriteStartArray("errors");
            foreach (LoadFailure failure in failures)
            {
                writer.WriteStartObject();
                writer.WriteString("path", failure.Path);
                writer.WriteString("error", failure.Exception.Message);
                writer.WriteEndObject();
            }

            writer.WriteEndArray();
            writer.WriteEndObject();
        }

        stream.WriteByte((byte)'\n');
    }

    /// <summary>What a load of loose files or of a pack reports.</summary>
    private sealed record Report(
        int Files,
        long Bytes,
        IReadOnlyList<LoadFailure> Failures,
        int DegreeOfParallelism,
        int InitialDegreeOfParallelism,
        IReadOnlyList<int> ParallelismHistory,
        string Storage,
        double Seconds,
        string Cache,
        string? Checksum);
}
