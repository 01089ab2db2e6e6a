using System.CommandLine;

namespace FastLoad.Cli.Commands;

/// <summary>
/// <c>fastload prefetch &lt;manifest&gt;</c>: replay a start-up manifest into the page cache before the application
/// starts (<c>fastload prefetch app.startup-manifest &amp; exec dotnet app.dll</c>).
/// </summary>
internal static class PrefetchCommand
{
    public static Command Create()
    {
        var manifest = new Argument<string>("manifest") { Description = "The start-up manifest (<app>.startup-manifest) an application wrote with StartupPrefetch." };
        var budget = new Option<long?>("--budget") { Description = "The most bytes to read from the disk (default: 256 MiB)." };
        var quiet = new Option<bool>("--quiet", "-q") { Description = "Print nothing; the exit code tells." };
        var command = new Command(
            "prefetch",
            "Read the files and ranges of a start-up manifest into the page cache, at low I/O priority, skipping what is cached; "
            + "for a launcher or a container entrypoint: `fastload prefetch app.startup-manifest & exec dotnet app.dll`. "
            + "Exit code 1 if the manifest is missing or not valid.")
        {
            manifest, budget, quiet,
        };
        command.SetAction((parse, cancellationToken) => RunAsync(parse.GetValue(manifest)!, parse.GetValue(budget), parse.GetValue(quiet), cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(string manifest, long? budget, bool quiet, CancellationToken cancellationToken)
    {
        var options = new StartupPrefetchOptions();
        if (budget is long bytes)
        {
            options.ReplayBudget = bytes;
        }

        StartupPrefetchSummary summary;
        try
        {
            summary = await StartupPrefetch.ReplayAsync(manifest, options, cancellationToken);
        }
        catch (ArgumentException ex)
        {
            Console.Error.WriteLine($"fastload: {ex.Message}");
            return ExitCodes.Usage;
        }
        catch (Exception ex) when (ex is IOException or InvalidDataException or UnauthorizedAccessException)
        {
            if (!quiet)
            {
                Console.Error.WriteLine($"fastload: {ex.Message}");
            }

            return ExitCodes.SomeFailed;
        }

        if (!quiet)
        {
            string ending = summary.BudgetReached ? "; stopped at the budget" : string.Empty;
            Console.WriteLine(
                $"prefetched {summary.FileCount:N0} files: {summary.RequestedBytes:N0} bytes read, {summary.CachedBytes:N0} already cached, "
                + $"{summary.ChangedFileCount:N0} changed files skipped, {summary.UnopenedFileCount:N0} that could not be opened, in {summary.ReplayDuration.TotalMilliseconds:F1} ms{ending}");
        }

        return ExitCodes.Success;
    }
}
