using FastLoad.Engine;
using Microsoft.Extensions.Logging;

namespace FastLoad.Prefetch;

/// <summary>
/// The log of a start: what the replay finds at the top of <c>Main</c> happens before the application has a logger, so
/// messages wait here (a few, in order) until <see cref="StartupPrefetch.End"/> brings one, and are written by the
/// start's own thread (<see cref="Flush"/>): the first message of a kind makes the runtime compile the logging code
/// for it, which must not happen on the thread that ends the start. A logger that throws loses its message, never the start.
/// </summary>
internal sealed class DeferredLogger
{
    private const int MaxPending = 64;

    // A monitor, not a System.Threading.Lock: made at the top of Main (LoadObservers says why).
    private readonly object _sync = new();
    private List<Action<ILogger>>? _pending;
    private ILogger? _logger;

    public DeferredLogger(ILogger? logger) => _logger = logger is null ? null : GuardedLogger.Wrap(logger);

    /// <summary>Logs through <paramref name="logger"/> once <see cref="Flush"/> is called; the first logger given stays.</summary>
    public void Attach(ILogger logger)
    {
        lock (_sync)
        {
            _logger ??= GuardedLogger.Wrap(logger);
        }
    }

    /// <summary>Writes what waited, if a logger is there.</summary>
    public void Flush()
    {
        lock (_sync)
        {
            if (_logger is not null && _pending is not null)
            {
                foreach (Action<ILogger> write in _pending)
                {
                    write(_logger);
                }

                _pending = null;
            }
        }
    }

    /// <summary>Writes now if a logger is there and nothing waits before; otherwise keeps the message for <see cref="Flush"/>.</summary>
    public void Write(Action<ILogger> write)
    {
        lock (_sync)
        {
            if (_logger is not null && _pending is null)
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
