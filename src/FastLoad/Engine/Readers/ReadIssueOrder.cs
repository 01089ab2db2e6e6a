using System.Diagnostics;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Engine;

/// <summary>
/// Sends each file's first read to the device in the order a lane handed the files out (Linux), where its threads
/// would send them in the order they happen to run. A spinning disk without command queuing serves requests in the
/// order they arrive, so a file that arrives after one further along costs it most of a rotation; the lane's window
/// of reads at once stays as deep as before. Each file has a ticket, its place in the lane's order: its thread opens
/// it, waits for the files before it to have their reads sent, asks the kernel to start reading it
/// (<see cref="ReadableFile.AdviseWillNeed"/>, which returns once the reads are sent) and passes the turn on. A turn
/// held up longer than the bound (a slow open, a file the lane never reached) is skipped: the order is an
/// optimization, never a reason for a read to wait long on another.
/// </summary>
/// <param name="maxWait">The longest a file's read waits for the files before it (<see cref="DefaultMaxWait"/>).</param>
internal sealed class ReadIssueOrder(TimeSpan maxWait)
{
    /// <summary>A couple of seeks and rotations of a spinning disk.</summary>
    internal static readonly TimeSpan DefaultMaxWait = TimeSpan.FromMilliseconds(20);

    // Waiters are woken by their own turn, not all at once: a ticket waits on the lock of its slot. Tickets in flight
    // at once are bounded by the lane's window; two that share a slot only wake each other once.
    private const int Slots = 256;

    // A large file's first request; the rest follows in its own reads.
    private const long MaxAdvice = 1024 * 1024;

    private readonly object[] _turns = CreateTurns();

    // Guarded by itself: tickets passed while one before them was still out.
    private readonly HashSet<long> _passedEarly = [];

    private long _next;

    /// <summary>
    /// Waits until every file before <paramref name="ticket"/> has passed (or the bound), then asks the
    /// kernel for the first bytes of <paramref name="handle"/>, a file of <paramref name="length"/> bytes. The caller
    /// passes the ticket afterwards, whether or not it got here.
    /// </summary>
    public void Issue(long ticket, SafeFileHandle handle, long length)
    {
        WaitForTurn(ticket);
        if (length > 0)
        {
            ReadableFile.AdviseWillNeed(handle, 0, Math.Min(length, MaxAdvice));
        }
    }

    /// <summary>Passes the turn of <paramref name="ticket"/> on: exactly once for every ticket handed out.</summary>
    public void Pass(long ticket)
    {
        long next;
        lock (_passedEarly)
        {
            if (ticket != _next)
            {
                _passedEarly.Add(ticket);
                return;
            }

            next = ticket + 1;
            while (_passedEarly.Remove(next))
            {
                next++;
            }

            Volatile.Write(ref _next, next);
        }

        object turn = _turns[next % Slots];
        lock (turn)
        {
            Monitor.PulseAll(turn);
        }
    }

    private static object[] CreateTurns()
    {
        var turns = new object[Slots];
        for (int slot = 0; slot < turns.Length; slot++)
        {
            turns[slot] = new object();
        }

        return turns;
    }

    /// <summary>
    /// Waits until every ticket before <paramref name="ticket"/> has passed: <see langword="false"/> where it waited
    /// the bound instead.
    /// </summary>
    internal bool WaitForTurn(long ticket)
    {
        object turn = _turns[ticket % Slots];
        long started = Stopwatch.GetTimestamp();
        lock (turn)
        {
            while (Volatile.Read(ref _next) < ticket)
            {
                TimeSpan left = maxWait - Stopwatch.GetElapsedTime(started);
                if (left <= TimeSpan.Zero || !Monitor.Wait(turn, left))
                {
                    return Volatile.Read(ref _next) >= ticket;
                }
            }
        }

        return true;
    }
}
