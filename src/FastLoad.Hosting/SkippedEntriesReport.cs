using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace FastLoad.Hosting;

/// <summary>
/// Logs, when the host starts, the entries a preloaded folder skipped: the folder was loaded before the host had a
/// logger (as <c>ValidateOnStart</c> reports options only once the host runs).
/// </summary>
internal sealed partial class SkippedEntriesReport(string name, PreloadedFileProvider provider, ILogger logger) : IHostedService
{
    public Task StartAsync(CancellationToken cancellationToken)
    {
        foreach (LoadFailure skipped in provider.Skipped)
        {
            LogSkipped(logger, name, provider.Root, skipped.Path, skipped.Exception);
        }

        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    [LoggerMessage(EventId = FastLoadEventId.PreloadedEntrySkipped, Level = LogLevel.Warning,
        Message = "The preloaded folder {Name} ({Root}) does not serve {Path}: it could not be loaded")]
    private static partial void LogSkipped(ILogger logger, string name, string root, string path, Exception exception);
}
