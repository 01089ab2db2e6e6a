using System.CommandLine;
using FastLoad.Shared;

namespace FastLoad.Cli.Commands;

/// <summary>
/// <c>fastload bench</c>: the comparison of <c>demo</c>, on the user's own files: each load in a new process, cold, as
/// start-up code makes it.
/// </summary>
internal static class BenchCommand
{
    public static Command Create()
    {
        var path = new Argument<string>("path") { Description = "The folder whose files to load." }.MustExist();
        var pattern = new Option<string>("--pattern") { Description = "File name pattern (* and ?).", DefaultValueFactory = _ => "*" };
        var rounds = new Option<int>("--rounds")
        {
            Description = "Rounds; each runs every method once cold and once warm. Medians are reported.",
            DefaultValueFactory = _ => 3,
        };
        var limit = new Option<int>("--limit") { Description = "Most files to load.", DefaultValueFactory = _ => 100_000 };
        var json = new Option<bool>("--json") { Description = "Print the medians as one JSON object (progress goes to stderr)." };
        var nativeReader = new Option<string?>("--native-reader")
        {
            Description = "Also measure this build of benchmarks/native/reference-reader.c, with 64 threads and with one per core.",
        };
        var command = new Command(
            "bench",
            "Load your files cold and warm, each time in a new process, with sequential File.ReadAllBytes, "
                + "Parallel.ForEachAsync, FastLoad and raw libc threads, and compare.")
        {
            path, pattern, rounds, limit, json, nativeReader,
        };
        command.SetAction((parse, cancellationToken) => RunAsync(
            parse.GetValue(path)!, parse.GetValue(pattern)!, parse.GetValue(rounds), parse.GetValue(limit),
            parse.GetValue(json), parse.GetValue(nativeReader), cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(
        string path, string pattern, int rounds, int limit, bool json, string? nativeReader, CancellationToken cancellationToken)
    {
        if (rounds < 1 || limit < 1)
        {
            Console.Error.WriteLine("fastload: --rounds and --limit must be at least 1.");
            return ExitCodes.Usage;
        }

        if (Comparison.TryListReadable(FileSet.FromDirectory(path, pattern), limit) is not { } paths)
        {
            return ExitCodes.SomeFailed;
        }

        if (paths.Count == 0)
        {
            Console.Error.WriteLine($"fastload: no files match '{pattern}' under '{path}'.");
            return ExitCodes.SomeFailed;
        }

        (json ? Console.Error : Console.Out).WriteLine($"Loading {paths.Count:N0} files under {path}, {rounds} rounds.");
        return await Comparison.RunAsync(paths, LoadMethods.Compared, rounds, json, nativeReader, cancellationToken);
    }

    /// <summary>The hidden command each measurement of a comparison runs in (see <see cref="Comparison"/>).</summary>
    public static Command CreateChild()
    {
        var method = new Argument<string>("method");
        var list = new Argument<string>("list") { Description = "A file with one path per line." };
        var warm = new Option<bool>(Comparison.WarmOption) { Description = "Keep the files cached between the two loads (default: evict them)." };
        var assemblies = new Option<bool>("--assemblies") { Description = "Also print, on standard error, the assemblies the first load loaded." };
        var command = new Command(Comparison.ChildCommand, "Load the listed files with one method, first and later load, and print the seconds and bytes.")
        {
            method, list, warm, assemblies,
        };
        command.Hidden = true;
        command.SetAction((parse, cancellationToken) =>
            Comparison.RunChildAsync(parse.GetValue(method)!, parse.GetValue(list)!, parse.GetValue(warm), parse.GetValue(assemblies), cancellationToken));
        return command;
    }
}
