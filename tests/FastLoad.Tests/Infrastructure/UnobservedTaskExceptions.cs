using System.Collections.Concurrent;

namespace FastLoad.Tests.Infrastructure;

/// <summary>
/// Records every task exception nobody observed while it is alive. Such an exception only surfaces when its task is
/// finalized, so <see cref="AssertNone"/> forces a full collection and waits for the finalizers first.
/// </summary>
public sealed class UnobservedTaskExceptions : IDisposable
{
    private readonly ConcurrentQueue<Exception> _seen = new();

    public UnobservedTaskExceptions() => TaskScheduler.UnobservedTaskException += OnUnobserved;

    public void AssertNone()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Assert.True(_seen.IsEmpty, $"{_seen.Count} unobserved task exception(s); the first: {(_seen.TryPeek(out Exception? first) ? first : null)}");
    }

    public void Dispose() => TaskScheduler.UnobservedTaskException -= OnUnobserved;

    private void OnUnobserved(object? sender, UnobservedTaskExceptionEventArgs e) => _seen.Enqueue(e.Exception);
}
