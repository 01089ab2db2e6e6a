using System.CommandLine;
using System.Diagnostics;
using System.Text.Json;
using FastLoad.Shared;

namespace FastLoad.Cli.Commands;

/// <summary><c>fastload load</c>: load files and folders, optionally cold, and report what it took.</summary>
internal static class LoadCommand
{
    public static Command Create()
    {
        var paths = new Argument<string[]>("paths") { Description = "Files and folders to load.", Arity = ArgumentArity.OneOrMore };
        var pattern = new Option<string>("--pattern") { Description = "File name pattern for folders (* and ?).", DefaultValueFactory = _ => "*" };
        var recursive = new Option<bool>("--recursive", "-r") { Description = "Include the subfolders of folders." };
        var dop = new Option<int?>("--dop") { Description = "Files read at once (default: automatic)." };
        var budget = new Option<long?>("--budget") { Description = "Memory budget in bytes (default: from the machine's memory)." };
        var cold = new Option<bool>("--cold") { Description = "Evict every file from the page cache first (Linux: fsync + posix_fadvise DONTNEED; no root needed)." };
        var json = new Option<bool>("--json") { Description = "Print one JSON object instead of text." };
        var checksum = new Option<bool>("--checksum") { Description = "Report a SHA-256 checksum of the loaded contents, independent of order." };

        var command = new Command("load", "Load files and folders into memory and report files, bytes, time and failures.")
        {
            paths, pattern, recursive, dop, budget, cold, json, checksum,
        };
        command.SetAction((parse, cancellationToken) => RunAsync(
            parse.GetValue(paths)!,
            parse.GetValue(pattern)!,
            parse.GetValue(recursive),
            parse.GetValue(dop),
            parse.GetValue(budget),
            parse.GetValue(cold),
            parse.GetValue(json),
            parse.GetValue(checksum),
            cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(
        string[] paths, string pattern, bool recursive, int? dop, long? budget, bool cold, bool json, bool checksum, CancellationToken cancellationToken)
    {
        var options = new FileLoaderOptions { MaxDegreeOfParallelism = dop, ErrorHandling = LoadErrorHandling.Collect };
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

        FileSet files = FileSet.Concat(paths.Select(path =>
            Directory.Exists(path) ? FileSet.FromDirectory(path, pattern, recursive) : FileSet.FromPaths([path])));

        string coldNote = cold ? Evict(files) : "warm (page cache as found)";
        var sums = checksum ? new LoadChecksum() : null;

        long start = Stopwatch.GetTimestamp();
        LoadSummary summary;
        try
        {
            summary = await loader.LoadAsync(
                files,
                (file, _) =>
                {
                    sums?.Add(file.Data.Span);
                    return ValueTask.CompletedTask;
                },
                cancellationToken);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            Console.Error.WriteLine($"fastload: {ex.Message}");
            return ExitCodes.SomeFailed;
        }

        double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        if (json)
        {
            WriteJson(summary, seconds, coldNote, sums?.Finish());
        }
        else
        {
            WriteText(summary, seconds, coldNote, sums?.Finish());
        }

        return summary.Failures.Count == 0 ? ExitCodes.Success : ExitCodes.SomeFailed;
    }

    private static string Evict(FileSet files)
    {
        if (!PageCache.IsEvictionSupported)
        {
            return "warm: evicting from the page cache is not supported on this OS";
        }

        foreach (string path in EnumerateQuietly(files))
        {
            try
            {
                PageCache.Evict(path);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                // The load reports this file's problem itself.
            }
        }

        return "cold (fsync + posix_fadvise DONTNEED per file)";
    }

    private static IEnumerable<string> EnumerateQuietly(FileSet files)
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

    private static void WriteText(LoadSummary summary, double seconds, string cache, string? checksum)
    {
        Console.WriteLine($"files      {summary.FileCount:N0}");
        Console.WriteLine($"bytes      {summary.ByteCount:N0}");
        Console.WriteLine($"failed     {summary.Failures.Count:N0}");
        Console.WriteLine($"seconds    {seconds:F3}");
        Console.WriteLine($"files/s    {summary.FileCount / seconds:N0}");
        Console.WriteLine($"MB/s       {summary.ByteCount / seconds / 1e6:N1}");
        Console.WriteLine($"parallel   {summary.DegreeOfParallelism} (started at {summary.InitialDegreeOfParallelism}: {string.Join(" -> ", summary.ParallelismHistory)})");
        Console.WriteLine($"storage    {summary.Storage?.ToString() ?? "unknown"}");
        Console.WriteLine($"cache      {cache}");
        if (checksum is not null)
        {
            Console.WriteLine($"checksum   {checksum}");
        }

        foreach (LoadFailure failure in summary.Failures)
        {
            Console.Error.WriteLine($"error: {failure.Exception.Message}");
        }
    }

    private static void WriteJson(LoadSummary summary, double seconds, string cache, string? checksum)
    {
        using var stream = Console.OpenStandardOutput();
        using (var writer = new Utf8JsonWriter(stream, new JsonWriterOptions { Indented = true }))
        {
            writer.WriteStartObject();
            writer.WriteNumber("files", summary.FileCount);
            writer.WriteNumber("bytes", summary.ByteCount);
            writer.WriteNumber("failed", summary.Failures.Count);
            writer.WriteNumber("seconds", Math.Round(seconds, 6));
            writer.WriteNumber("degreeOfParallelism", summary.DegreeOfParallelism);
            writer.WriteNumber("initialDegreeOfParallelism", summary.InitialDegreeOfParallelism);
            writer.WriteStartArray("parallelismHistory");
            foreach (int limit in summary.ParallelismHistory)
            {
                writer.WriteNumberValue(limit);
            }

            writer.WriteEndArray();
            writer.WriteString("storage", summary.Storage?.ToString() ?? "unknown");
            writer.WriteString("cache", cache);
            if (checksum is not null)
            {
                writer.WriteString("checksum", checksum);
            }

            writer.WriteStartArray("errors");
            foreach (LoadFailure failure in summary.Failures)
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
}
