using System.Diagnostics;
using Spectre.Console;

namespace FastLoad.Cli;

/// <summary>
/// A progress bar with files, bytes and rate, drawn by Spectre.Console while a long load runs, only when stdout is an
/// interactive terminal and the output is not JSON: redirected output and scripts see only the final report.
/// </summary>
internal static class LoadProgress
{
    public static bool IsWanted(bool json) =>
        !json && !Console.IsOutputRedirected && AnsiConsole.Profile.Capabilities.Interactive;

    /// <summary>Runs <paramref name="load"/>, passing it a callback to report each loaded file's length.</summary>
    public static async Task<T> RunAsync<T>(int fileCount, Func<Action<long>, Task<T>> load)
    {
        T result = default!;
        await AnsiConsole.Progress()
            .AutoClear(true)
            .Columns(new TaskDescriptionColumn(), new ProgressBarColumn(), new PercentageColumn(), new ElapsedTimeColumn())
            .StartAsync(async context =>
            {
                ProgressTask task = context.AddTask("loading", maxValue: Math.Max(1, fileCount));
                long files = 0;
                long bytes = 0;
                long start = Stopwatch.GetTimestamp();
                result = await load(length =>
                {
                    long done = Interlocked.Increment(ref files);
                    long total = Interlocked.Add(ref bytes, length);
                    task.Increment(1);
                    if ((done & 63) == 0)
                    {
                        double seconds = Math.Max(Stopwatch.GetElapsedTime(start).TotalSeconds, 1e-3);
                        task.Description = $"{done:N0} files, {total / 1e6:N0} MB, {total / seconds / 1e6:N0} MB/s";
                    }
                });
            });
        return result;
    }
}
