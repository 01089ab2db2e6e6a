namespace FastLoad.Parallelism;

/// <summary>
/// Hill climbing on measured throughput. After each window of completed reads it compares the window's throughput
/// with the best seen at this device's current behaviour: a better window moves on in the same direction; one within
/// noise of the best moves to fewer reads in flight (the same throughput for less memory and CPU); a worse one goes
/// back to the cheapest limit that reached the best, with a smaller step. When the best limit itself no longer
/// delivers, the device has changed and the best is forgotten. Every few windows without news it probes one step up.
/// The limit stays within [1, ceiling]. Thread-safe; time comes from the injected <see cref="TimeProvider"/>.
/// </summary>
internal sealed class ParallelismController
{
    /// <summary>The shortest window; long enough to average many completions at small-file rates.</summary>
    internal static readonly TimeSpan DefaultWindow = TimeSpan.FromMilliseconds(50);

    /// <summary>A change of throughput smaller than this fraction is noise.</summary>
    internal const double NoiseFraction = 0.06;

    private const double InitialStep = 2.0;
    private const double MinimumStep = 1.2;
    private const int MinimumCompletionsPerWindow = 8;
    private const int ProbeUpEvery = 8;

    private readonly object _sync = new();
    private readonly TimeProvider _time;
    private readonly TimeSpan _window;
    private readonly int _ceiling;
    private readonly bool _countFiles;
    private readonly List<int> _history;
    private long _windowStart;
    private long _windowFiles;
    private long _windowBytes;
    private int _limit;
    private double _bestThroughput = double.NaN;
    private int _bestLimit;
    private int _direction;
    private int _windowsWithoutNews;
    private double _step = InitialStep;

    /// <param name="initial">The limit to start from (the policy's prior).</param>
    /// <param name="ceiling">The highest limit (the read block's MaxDegreeOfParallelism).</param>
    /// <param name="countFiles">Measure files per second (small files: requests are the cost) rather than bytes per second.</param>
    /// <param name="time">The clock of the measurement windows.</param>
    /// <param name="window">The shortest measurement window; <see langword="null"/> for <see cref="DefaultWindow"/>.</param>
    public ParallelismController(int initial, int ceiling, bool countFiles, TimeProvider time, TimeSpan? window = null)
    {
        _ceiling = Math.Max(1, ceiling);
        _limit = Math.Clamp(initial, 1, _ceiling);
        _countFiles = countFiles;
        _time = time;
        _window = window ?? DefaultWindow;
        _direction = _limit < _ceiling ? 1 : -1;
        _history = [_limit];
        _windowStart = time.GetTimestamp();
    }

    public int Limit
    {
        get { lock (_sync) return _limit; }
    }

    /// <summary>The limits in the order they were set, starting with the initial one.</summary>
    public IReadOnlyList<int> History
    {
        get { lock (_sync) return _history.ToArray(); }
    }

    /// <summary>Records completed work; returns the new limit when this completion closed a window that changed it.</summary>
    public int? OnCompleted(long bytes, int files)
    {
        lock (_sync)
        {
            _windowBytes += bytes;
            _windowFiles += files;
            TimeSpan elapsed = _time.GetElapsedTime(_windowStart);
            if (elapsed < _window || _windowFiles < Math.Min(MinimumCompletionsPerWindow, _limit))
            {
                return null;
            }

            double throughput = (_countFiles ? _windowFiles : _windowBytes) / elapsed.TotalSeconds;
            _windowStart = _time.GetTimestamp();
            _windowFiles = 0;
            _windowBytes = 0;
            int next = Decide(throughput);
            if (next == _limit)
            {
                return null;
            }

            _limit = next;
            _history.Add(next);
            return next;
        }
    }

    private int Decide(double throughput)
    {
        if (double.IsNaN(_bestThroughput) || throughput > _bestThroughput * (1 + NoiseFraction))
        {
            // Better than anything seen: remember it and keep going the way that got here.
            _bestThroughput = throughput;
            _bestLimit = _limit;
            _windowsWithoutNews = 0;
            return Step(_direction);
        }

        if (throughput >= _bestThroughput * (1 - NoiseFraction))
        {
            // As good as the best: prefer the cheaper limit, and now and then look one step up.
            _bestLimit = Math.Min(_bestLimit, _limit);
            _bestThroughput = Math.Max(_bestThroughput, throughput);
            return ++_windowsWithoutNews % ProbeUpEvery == 0 ? Step(1) : Step(-1);
        }

        if (_limit == _bestLimit)
        {
            // The best limit no longer delivers its best: the device changed. Start again from here.
            _bestThroughput = throughput;
            _windowsWithoutNews = 0;
            return Step(-_direction);
        }

        // Worse: back to the best limit, with a smaller step from now on.
        _step = Math.Max(MinimumStep, Math.Sqrt(_step));
        _direction = _bestLimit > _limit ? 1 : -1;
        return _bestLimit;
    }

    private int Step(int direction)
    {
        _direction = direction;
        int next = direction > 0
            ? Math.Max(_limit + 1, (int)Math.Round(_limit * _step))
            : Math.Min(_limit - 1, (int)Math.Round(_limit / _step));
        return Math.Clamp(next, 1, _ceiling);
    }
}
