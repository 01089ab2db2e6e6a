namespace FastLoad.FileSystem;

/// <summary>What the scheduler says of the calling thread (Linux).</summary>
internal static class ThreadSchedule
{
    private const int SchedStatLength = 96;

    /// <summary>
    /// How long the calling thread has been ready to run but waiting for a CPU, in all: the second field of
    /// <c>/proc/thread-self/schedstat</c>, in nanoseconds (kept by kernels built with scheduler statistics, as
    /// distributions build them).
    /// </summary>
    /// <returns>The nanoseconds; -1 where the kernel does not say.</returns>
    /// <remarks>Linux only, as its callers are (the getdents64 walk).</remarks>
    public static long RunQueueWaitNanoseconds()
    {
        Span<byte> text = stackalloc byte[SchedStatLength];
        return SecondNumber(text[..KernelFiles.Read("/proc/thread-self/schedstat", text)]);
    }

    /// <summary>The second of the space-separated numbers of <paramref name="schedStat"/>; -1 where there is none.</summary>
    internal static long SecondNumber(ReadOnlySpan<byte> schedStat)
    {
        int at = schedStat.IndexOf((byte)' ');
        if (at < 0)
        {
            return -1;
        }

        long value = 0;
        int digits = 0;
        for (at++; at < schedStat.Length && schedStat[at] is >= (byte)'0' and <= (byte)'9' && digits < 18; at++, digits++)
        {
            value = (value * 10) + (schedStat[at] - '0');
        }

        return digits == 0 ? -1 : value;
    }
}
