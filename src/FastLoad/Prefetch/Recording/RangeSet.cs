namespace FastLoad.Prefetch;

/// <summary>
/// Byte ranges of one file gathered in any order, made canonical for the manifest: sorted, apart, bounded in number.
/// Kept in arrays of <see cref="long"/>, which need no generic code compiled at start-up.
/// </summary>
internal sealed class RangeSet
{
    /// <summary>A file read whole, whatever its length.</summary>
    public const long WholeFile = long.MaxValue;

    private long[] _starts = new long[4];
    private long[] _ends = new long[4];
    private int _count;

    public void Add(long start, long end)
    {
        if (end <= start)
        {
            return;
        }

        if (_count == _starts.Length)
        {
            long[] starts = new long[_count * 2], ends = new long[_count * 2];
            Array.Copy(_starts, starts, _count);
            Array.Copy(_ends, ends, _count);
            (_starts, _ends) = (starts, ends);
        }

        _starts[_count] = start;
        _ends[_count] = end;
        _count++;
    }

    public void AddWhole() => Add(0, WholeFile);

    public void AddAll(RangeSet other)
    {
        for (int i = 0; i < other._count; i++)
        {
            Add(other._starts[i], other._ends[i]);
        }
    }

    /// <summary>
    /// The ranges cut at <paramref name="length"/>, sorted, overlapping and touching ones joined; if there are more
    /// than <paramref name="maxRanges"/>, the nearest are joined across their gaps (which a replay then reads too).
    /// </summary>
    public StartupManifestRange[] Normalize(long length, int maxRanges)
    {
        SortByStart();
        long[] starts = new long[_count], ends = new long[_count];
        int joined = Join(length, gap: 0, starts, ends);
        for (long gap = Environment.SystemPageSize; joined > maxRanges; gap *= 2)
        {
            joined = Join(length, gap, starts, ends);
        }

        var ranges = new StartupManifestRange[joined];
        for (int i = 0; i < joined; i++)
        {
            ranges[i] = new StartupManifestRange(starts[i], ends[i] - starts[i]);
        }

        return ranges;
    }

    /// <summary>
    /// Insertion sort by start: ranges come nearly in order (a mapping's pages in address order, the mappings of a file
    /// by offset), where it is linear; and it is not <c>Array.Sort&lt;long, long&gt;</c>, which the runtime would compile.
    /// </summary>
    private void SortByStart()
    {
        for (int i = 1; i < _count; i++)
        {
            long start = _starts[i], end = _ends[i];
            int j = i - 1;
            for (; j >= 0 && _starts[j] > start; j--)
            {
                _starts[j + 1] = _starts[j];
                _ends[j + 1] = _ends[j];
            }

            _starts[j + 1] = start;
            _ends[j + 1] = end;
        }
    }

    /// <summary>Joins the sorted ranges that overlap or lie within <paramref name="gap"/> of each other, into the two arrays; returns how many.</summary>
    private int Join(long length, long gap, long[] starts, long[] ends)
    {
        int joined = 0;
        for (int i = 0; i < _count; i++)
        {
            long from = Math.Max(0, _starts[i]), to = Math.Min(length, _ends[i]);
            if (to <= from)
            {
                continue;
            }

            if (joined > 0 && from - ends[joined - 1] <= gap)
            {
                ends[joined - 1] = Math.Max(ends[joined - 1], to);
            }
            else
            {
                starts[joined] = from;
                ends[joined] = to;
                joined++;
            }
        }

        return joined;
    }
}
