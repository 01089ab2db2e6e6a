using System.Runtime.ExceptionServices;

namespace FastLoad.Prefetch;

/// <summary>
/// Lowers the priority of the replay's reads and the recording's work, so that the application's own work comes
/// first: the I/O priority (where the device's scheduler knows priorities: Linux BFQ and mq-deadline, macOS, Windows)
/// of the calling thread for as long as the scope lasts, and the CPU priority of a thread of its own. A thread that
/// creates threads passes its priorities on to them for life (pool workers included), so no thread that runs the
/// application's code, calls a logger, completes a task or queues work keeps a lowered priority. Best effort: a refusal
/// leaves the priority as it was.
/// </summary>
internal static partial class BackgroundPriority
{
    /// <summary>Lowers the calling thread's I/O priority until the scope is disposed, on the same thread.</summary>
    public static IoScope LowerIo()
    {
        if (OperatingSystem.IsLinux())
        {
            return LowerIoLinux();
        }

        if (OperatingSystem.IsMacOS())
        {
            return LowerIoOSX();
        }

        if (OperatingSystem.IsWindows())
        {
            return LowerIoWindows();
        }

        return default;
    }

    /// <summary>
    /// Runs <paramref name="work"/> at low CPU and I/O priority and returns what it returns, rethrowing what it throws.
    /// On Linux on a thread of its own that ends with it, since an unprivileged thread cannot raise its nice value back;
    /// <paramref name="work"/> must not create threads or queue work. Elsewhere on the calling thread, restored after.
    /// </summary>
    public static T RunLowered<T>(Func<T> work)
    {
        if (!OperatingSystem.IsLinux())
        {
            ThreadPriority before = Thread.CurrentThread.Priority;
            using IoScope io = LowerIo();
            try
            {
                if (OperatingSystem.IsWindows())
                {
                    Thread.CurrentThread.Priority = ThreadPriority.BelowNormal;
                }

                return work();
            }
            finally
            {
                Thread.CurrentThread.Priority = before;
            }
        }

        T result = default!;
        ExceptionDispatchInfo? failure = null;
        var thread = new Thread(() =>
        {
            try
            {
                LowerCpuLinux();
                _ = LowerIoLinux(); // Not restored: the thread ends with the work.
                result = work();
            }
            catch (Exception ex)
            {
                failure = ExceptionDispatchInfo.Capture(ex);
            }
        })
        { IsBackground = true, Name = "FastLoad startup record" };
        try
        {
            thread.UnsafeStart();
        }
        catch (Exception ex) when (ex is OutOfMemoryException or ThreadStartException)
        {
            return work(); // The system would not create the thread: done at the caller's priority rather than not at all.
        }

        thread.Join();
        failure?.Throw();
        return result;
    }

    /// <summary>Sets the calling thread's I/O priority back to <paramref name="before"/>, as the platform's lowering reported it.</summary>
    private static void RestoreIo(int before)
    {
        if (OperatingSystem.IsLinux())
        {
            RestoreIoLinux(before);
        }
        else if (OperatingSystem.IsMacOS())
        {
            RestoreIoOSX(before);
        }
        else if (OperatingSystem.IsWindows())
        {
            RestoreIoWindows(before);
        }
    }

    /// <summary>
    /// The calling thread's I/O priority as it was before <see cref="LowerIo"/>, given back by <see cref="Dispose"/>; the
    /// default scope (nothing was lowered) gives back nothing.
    /// </summary>
    internal readonly struct IoScope(int before) : IDisposable
    {
        private readonly bool _lowered = true;

        public void Dispose()
        {
            if (_lowered)
            {
                RestoreIo(before);
            }
        }
    }
}
