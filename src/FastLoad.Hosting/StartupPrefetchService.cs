using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace FastLoad.Hosting;

/// <summary>Ends a start when the host has started. Its owner disposes it when the application ends, which writes the manifest.</summary>
internal sealed class StartupPrefetchService(StartupPrefetch prefetch, IHostApplicationLifetime lifetime, ILoggerFactory? loggerFactory = null) : IHostedService
{
    /// <summary>The category of the start's log messages.</summary>
    public const string LogCategory = "FastLoad.StartupPrefetch";

    private CancellationTokenRegistration _started;

    public Task StartAsync(CancellationToken cancellationToken)
    {
        ILogger? logger = loggerFactory?.CreateLogger(LogCategory);
        _started = lifetime.ApplicationStarted.Register(() => prefetch.End(logger));
        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken) => _started.DisposeAsync().AsTask();
}
