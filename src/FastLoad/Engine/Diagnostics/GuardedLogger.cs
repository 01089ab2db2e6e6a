using Microsoft.Extensions.Logging;

namespace FastLoad.Engine;

/// <summary>
/// The loader's logger with its failures contained: a sink that throws (full, broken, or closed) loses that message,
/// and the load goes on as if it had been written. A diagnostic never decides what happens to a file.
/// </summary>
internal sealed class GuardedLogger(ILogger inner) : ILogger
{
    /// <summary><paramref name="logger"/> guarded, once.</summary>
    public static ILogger Wrap(ILogger logger) => logger as GuardedLogger ?? new GuardedLogger(logger);

    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull
    {
        try
        {
            return inner.BeginScope(state);
        }
        catch (Exception)
        {
            return null;
        }
    }

    public bool IsEnabled(LogLevel logLevel)
    {
        try
        {
            return inner.IsEnabled(logLevel);
        }
        catch (Exception)
        {
            return false;
        }
    }

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        try
        {
            inner.Log(logLevel, eventId, state, exception, formatter);
        }
        catch (Exception)
        {
            // The message is lost; the load is not.
        }
    }
}
