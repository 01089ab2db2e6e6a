using Microsoft.Extensions.Logging;

namespace FastLoad.Tests.Infrastructure;

/// <summary>A logger factory that keeps every message, for tests that check what was logged.</summary>
public sealed class ListLoggerFactory : ILoggerFactory
{
    private readonly List<(LogLevel Level, EventId Id, string Message)> _entries = [];

    public IReadOnlyList<(LogLevel Level, EventId Id, string Message)> Entries
    {
        get { lock (_entries) return _entries.ToArray(); }
    }

    /// <summary>Called with each entry's event, on the logging thread, after the entry is listed.</summary>
    public Action<EventId>? OnLog { get; set; }

    public ILogger CreateLogger(string categoryName) => new ListLogger(this);

    public void AddProvider(ILoggerProvider provider)
    {
    }

    public void Dispose()
    {
    }

    private sealed class ListLogger(ListLoggerFactory owner) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            lock (owner._entries)
            {
                owner._entries.Add((logLevel, eventId, formatter(state, exception)));
            }

            owner.OnLog?.Invoke(eventId);
        }
    }
}
