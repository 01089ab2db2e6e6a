using System.Runtime.CompilerServices;

namespace FastLoad.FileSystem;

/// <summary>
/// Gives back what loads keep for the next one (slabs and blocks whose files were disposed, io_uring rings) once the
/// process has loaded nothing for a while, as the shared array pool trims what it keeps: a start-up library should not
/// hold tens of megabytes for the life of the process. A timer looks every <see cref="Period"/>: when nothing was rented
/// or returned since its last look, it frees everything kept, and stops. A load that follows another sooner reuses it all.
/// The process's first timer is started when a reader thread leaves after its idle time
/// (<see cref="ReaderThreadPool.IdleTimeout"/>), never on a load's path: the first timer of a process starts the
/// runtime's timer thread, which would cost a first load in a new process a tenth of its time. Once that thread runs,
/// a use that finds no timer starts one at once. (Large blocks have their own, shorter idle time: see
/// <see cref="NativeBlockPool.LargeBlockIdleTime"/>.)
/// </summary>
internal static class IdleTrimmer
{
    /// <summary>How often the timer looks: what is kept goes within two of these after the last use.</summary>
    internal static readonly TimeSpan Period = TimeSpan.FromSeconds(2.5);

    private static readonly object Gate = new();
    private static Timer? s_timer;

    // Whether this process has made a timer: the runtime's timer thread runs from then on, and starting one is cheap.
    private static bool s_timerThreadRuns;

    // 1 when something was rented or returned since the timer last looked.
    private static int s_used;

    /// <summary>
    /// The bytes FastLoad keeps while no load needs them: free slabs, idle pooled and large blocks, and the memory of
    /// idle rings (the kernel's, charged to the process).
    /// </summary>
    internal static long KeptBytes =>
        SmallBlockPool.RetainedBytes + NativeBlockPool.RetainedPooledBytes + NativeBlockPool.RetainedLargeBytes
        + (OperatingSystem.IsLinux() ? IoUring.IdleBytes : 0);

    /// <summary>Notes a rent or a return of something that may be kept: a read, and once per period a little more.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void NoteUse()
    {
        if (Volatile.Read(ref s_used) == 0)
        {
            MarkUsed();
        }
    }

    /// <summary>
    /// Called by a reader thread that leaves, idle: loads have stopped using it, so the process may be idle; the timer
    /// starts looking (the first time in this process, here rather than on a load's path).
    /// </summary>
    public static void OnReaderThreadIdle()
    {
        Interlocked.Exchange(ref s_used, 0);
        Start();
    }

    /// <summary>Frees everything kept now.</summary>
    internal static void TrimNow()
    {
        NativeBlockPool.FreeIdlePooledBlocks();
        NativeBlockPool.TrimIdleLargeBlocks(long.MaxValue);
        if (OperatingSystem.IsLinux())
        {
            IoUring.CloseIdle();
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void MarkUsed()
    {
        // A full fence between marking and looking at the timer, paired with the one in Tick: either this sees the
        // timer gone and starts one, or the tick sees the mark and keeps going.
        Interlocked.Exchange(ref s_used, 1);
        if (Volatile.Read(ref s_timer) is null && Volatile.Read(ref s_timerThreadRuns))
        {
            Start();
        }
    }

    private static void Start()
    {
        lock (Gate)
        {
            // The timer roots nothing but static state and does not keep the process alive.
            s_timer ??= new Timer(static _ => Tick(), null, Period, Period);
            Volatile.Write(ref s_timerThreadRuns, true);
        }
    }

    private static void Tick()
    {
        if (Interlocked.Exchange(ref s_used, 0) == 1)
        {
            return; // Used since the last look: what is kept may be wanted again soon.
        }

        TrimNow();
        lock (Gate)
        {
            s_timer?.Dispose();
            Volatile.Write(ref s_timer, null);
        }

        Interlocked.MemoryBarrier();
        if (Volatile.Read(ref s_used) == 1)
        {
            Start();
        }
    }
}
