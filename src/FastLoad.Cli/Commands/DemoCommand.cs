using System.CommandLine;
using FastLoad.Shared;

namespace FastLoad.Cli.Commands;

/// <summary>
/// <c>fastload demo</c>: generates a deterministic set of small files, and loads it cold and warm with the usual ways,
/// with FastLoad and with the reference reader, side by side in rounds, each load in a new process, printing medians and
/// ratios to the sequential loop.
/// </summary>
internal static class DemoCommand
{
    private const int KiB = 1024;

    public static Command Create()
    {
        var count = new Option<int>("--files") { Description = "Number of files to generate.", DefaultValueFactory = _ => 10_000 };
        var minSize = new Option<int>("--min-size") { Description = "Smallest file, in bytes.", DefaultValueFactory = _ => 2 * KiB };
        var maxSize = new Option<int>("--max-size") { Description = "Largest file, in bytes.", DefaultValueFactory = _ => 128 * KiB };
        var rounds = new Option<int>("--rounds")
        {
            Description = "Rounds; each round runs every method once cold and once warm. Medians are reported.",
            DefaultValueFactory = _ => 3,
        };
        var directory = new Option<string?>("--dir") { Description = "Where to generate the files (default: a new temporary folder, removed at the end)." };

        var command = new Command(
            "demo",
            "Generate 10,000 files of 2-128 KiB and load them cold and warm, each load in a new process: File.ReadAllBytes "
                + "loop, Parallel.ForEachAsync, FastLoad, raw libc threads.")
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
            return await Comparison.RunAsync(paths, LoadMethods.Compared, rounds, json: false, nativeReader: null, cancellationToken);
        }
        finally
        {
            if (temporary && Directory.Exists(root))
            {
                Directory.Delete(root, recursive: true);
            }
        }
    }
}
