using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace FastLoad.Hosting;

/// <summary>Ends a start when the host has started; waits for its manifest when the host stops.</summary>
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

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        await _started.DisposeAsync().ConfigureAwait(false);

        // A host that stops before it started (a failed start) leaves the start unended, and its owner's Dispose then
        // records nothing: there is nothing to wait for.
        if (lifetime.ApplicationStarted.IsCancellationRequested)
        {
            await prefetch.Completion.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
    }
}
