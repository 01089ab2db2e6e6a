using System.CommandLine;
using FastLoad.Cli.Commands;

namespace FastLoad.Cli;

internal static class Program
{
    private static async Task<int> Main(string[] args)
    {
        var root = new RootCommand("fastload: load files from disk into memory as fast as the storage allows.")
        {
            LoadCommand.Create(),
            DemoCommand.Create(),
            ProbeCommand.Create(),
            BenchCommand.Create(),
            BenchCommand.CreateChild(),
            PackCommand.Create(),
            UnpackCommand.Create(),
            ListCommand.Create(),
            VerifyCommand.Create(),
            PrefetchCommand.Create(),
            ManifestCommand.Create(),
        };

        ParseResult parse = root.Parse(args);
        IReadOnlyList<string> errors = CommandLine.Errors(parse);
        if (errors.Count > 0)
        {
            foreach (string error in errors)
            {
                Console.Error.WriteLine($"fastload: {error}");
            }

            if (!CommandLine.AreAllMissingPaths(errors))
            {
                Console.Error.WriteLine("Try 'fastload --help'.");
            }

            return ExitCodes.Usage;
        }

        using var cancel = new CancellationTokenSource();
        Console.CancelKeyPress += (_, e) =>
        {
            e.Cancel = true;
            cancel.Cancel();
        };
        return await parse.InvokeAsync(cancellationToken: cancel.Token);
    }
}
