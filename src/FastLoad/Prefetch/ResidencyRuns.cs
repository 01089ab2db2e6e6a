namespace FastLoad.Prefetch;

/// <summary>
/// Byte ranges of a file in order, each in the page cache or not, as <see cref="PageResidency"/> found them. Arrays
/// rather than a list of tuples: a generic collection of a struct is code the runtime compiles on first use, and this
/// runs at the start it is warming.
/// </summary>
internal sealed class ResidencyRuns
{
    private long[] _starts = new long[16];
    private long[] _ends = new long[16];
    private bool[] _resident = new bool[16];

    public int Count { get; private set; }

    public long Start(int index) => _starts[index];

    public long End(int index) => _ends[index];

    public bool IsResident(int index) => _resident[index];

    public void Clear() => Count = 0;

    /// <summary>Drops the runs added after the first <paramref name="count"/>.</summary>
    public void Truncate(int count) => Count = Math.Min(Count, count);

    /// <summary>Adds a run after the last; one that continues the last with the same residency extends it.</summary>
    public void Add(long start, long end, bool resident)
    {
        if (Count > 0 && _ends[Count - 1] == start && _resident[Count - 1] == resident)
        {
            _ends[Count - 1] = end;
            return;
        }

        if (Count == _starts.Length)
        {
            _starts = Grow(_starts);
            _ends = Grow(_ends);
            _resident = Grow(_resident);
        }

        _starts[Count] = start;
        _ends[Count] = end;
        _resident[Count] = resident;
        Count++;
    }

    // Written out rather than Array.Resize<T>, a generic method the runtime would compile for each element type.
    private static long[] Grow(long[] array)
    {
        long[] grown = new long[array.Length * 2];
        Array.Copy(array, grown, array.Length);
        return grown;
    }

    private static bool[] Grow(bool[] array)
    {
        bool[] grown = new bool[array.Length * 2];
        Array.Copy(array, grown, array.Length);
        return grown;
    }
}
