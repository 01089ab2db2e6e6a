using System.CommandLine;
using FastLoad.Shared;

namespace FastLoad.Cli.Commands;

/// <summary><c>fastload bench</c>: the comparison of <c>demo</c>, on the user's own files.</summary>
internal static class BenchCommand
{
    public static Command Create()
    {
        var path = new Argument<string>("path") { Description = "The folder whose files to load." };
        var pattern = new Option<string>("--pattern") { Description = "File name pattern (* and ?).", DefaultValueFactory = _ => "*" };
        var rounds = new Option<int>("--rounds") { Description = "Rounds; each runs every method once, cold. Medians are reported.", DefaultValueFactory = _ => 3 };
        var limit = new Option<int>("--limit") { Description = "Most files to load.", DefaultValueFactory = _ => 100_000 };
        var command = new Command("bench", "Load your files cold with sequential File.ReadAllBytes, Parallel.ForEachAsync and FastLoad, and compare.")
        {
            path, pattern, rounds, limit,
        };
        command.SetAction((parse, cancellationToken) => RunAsync(parse.GetValue(path)!, parse.GetValue(pattern)!, parse.GetValue(rounds), parse.GetValue(limit), cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(string path, string pattern, int rounds, int limit, CancellationToken cancellationToken)
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

        Console.WriteLine($"Loading {paths.Count:N0} files under {path}, {rounds} rounds.");
        return await Comparison.RunAsync(paths, LoadMethods.Demo, rounds, cancellationToken);
    }
}
