namespace FastLoad.Benchmarks;

/// <summary>A dedicated thread for every file, all started before any is joined: as many reads in flight as files.</summary>
internal static class OneThreadPerFile
{
    /// <summary>Runs <paramref name="read"/> (index, path) for every path on its own thread; returns the sum of what it returned.</summary>
    public static long Run(IReadOnlyList<string> paths, Func<int, string, long> read)
    {
        long[] lengths = new long[paths.Count];
        Thread[] threads = [.. paths.Select((path, index) => new Thread(() => lengths[index] = read(index, path)))];
        foreach (Thread thread in threads)
        {
            thread.Start();
        }

        foreach (Thread thread in threads)
        {
            thread.Join();
        }

        return lengths.Sum();
    }
}
