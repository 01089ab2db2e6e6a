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

    // The bar is redrawn a few times a second anyway; updating it once per file costs a fast load a share of its time.
    private static readonly TimeSpan UpdateInterval = TimeSpan.FromMilliseconds(100);

    /// <summary>Runs <paramref name="load"/>, passing it a callback to report each loaded file's length; the bar follows the counts every 100 ms.</summary>
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
                void Show()
                {
                    long done = Interlocked.Read(ref files);
                    long total = Interlocked.Read(ref bytes);
                    double seconds = Math.Max(Stopwatch.GetElapsedTime(start).TotalSeconds, 1e-3);
                    task.Value = done;
                    task.Description = $"{done:N0} files, {total / 1e6:N0} MB, {total / seconds / 1e6:N0} MB/s";
                }

                Task<T> loading = load(length =>
                {
                    Interlocked.Increment(ref files);
                    Interlocked.Add(ref bytes, length);
                });
                using var timer = new PeriodicTimer(UpdateInterval);
                while (await Task.WhenAny(loading, timer.WaitForNextTickAsync().AsTask()) != loading)
                {
                    Show();
                }

                Show();
                result = await loading;
            });
        return result;
    }
}
