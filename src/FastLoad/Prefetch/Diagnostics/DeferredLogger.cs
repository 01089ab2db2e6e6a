using FastLoad.Engine;
using Microsoft.Extensions.Logging;

namespace FastLoad.Prefetch;

/// <summary>
/// The log of a start: what the replay finds at the top of <c>Main</c> happens before the application has a logger, so
/// messages wait here (a few, in order) until <see cref="StartupPrefetch.End"/> brings one. A logger that throws loses
/// its message, never the start.
/// </summary>
internal sealed class DeferredLogger
{
    private const int MaxPending = 64;

    private readonly Lock _sync = new();
    private List<Action<ILogger>>? _pending;
    private ILogger? _logger;

    public DeferredLogger(ILogger? logger) => _logger = logger is null ? null : GuardedLogger.Wrap(logger);

    /// <summary>Logs through <paramref name="logger"/> from now on, starting with what waited; the first logger given stays.</summary>
    public void Attach(ILogger logger)
    {
        lock (_sync)
        {
            if (_logger is not null)
            {
                return;
            }

            _logger = GuardedLogger.Wrap(logger);
            foreach (Action<ILogger> write in _pending ?? [])
            {
                write(_logger);
            }

            _pending = null;
        }
    }

    public void Write(Action<ILogger> write)
    {
        lock (_sync)
        {
            if (_logger is not null)
            {
                write(_logger);
            }
            else if ((_pending ??= []).Count < MaxPending)
            {
                _pending.Add(write);
            }
        }
    }
}
