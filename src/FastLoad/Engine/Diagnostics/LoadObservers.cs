namespace FastLoad.Engine;

/// <summary>
/// Listeners, process-wide, to the files FastLoad reads (loads, chunk streams, packs): a start-up recorder subscribes
/// for the length of a start to learn which files it read. With no listener, a file costs one volatile read.
/// </summary>
internal static class LoadObservers
{
    // A monitor, not a System.Threading.Lock: StartupPrefetch.Begin subscribes at the top of Main, where a process's
    // first Lock costs about half a millisecond (the host has not used one yet). The same holds for Begin's other locks.
    private static readonly object Sync = new();
    private static Action<string>[] s_listeners = [];

    /// <summary>Calls <paramref name="listener"/> with the path of every file read from now until the result is disposed.</summary>
    public static IDisposable Subscribe(Action<string> listener)
    {
        lock (Sync)
        {
            Volatile.Write(ref s_listeners, [.. s_listeners, listener]);
        }

        return new Subscription(listener);
    }

    /// <summary>Tells the listeners that <paramref name="path"/> was read (or opened to be read).</summary>
    public static void FileRead(string path)
    {
        Action<string>[] listeners = Volatile.Read(ref s_listeners);
        if (listeners.Length != 0)
        {
            Notify(listeners, path);
        }
    }

    // A listener that throws loses that file: a diagnostic never decides what happens to a load.
    private static void Notify(Action<string>[] listeners, string path)
    {
        foreach (Action<string> listener in listeners)
        {
            try
            {
                listener(path);
            }
            catch (Exception)
            {
            }
        }
    }

    private sealed class Subscription(Action<string> listener) : IDisposable
    {
        private bool _disposed;

        public void Dispose()
        {
            lock (Sync)
            {
                if (!_disposed)
                {
                    _disposed = true;
                    int index = Array.IndexOf(s_listeners, listener);
                    Volatile.Write(ref s_listeners, [.. s_listeners[..index], .. s_listeners[(index + 1)..]]);
                }
            }
        }
    }
}
