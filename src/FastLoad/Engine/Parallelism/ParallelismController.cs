namespace FastLoad.Engine;

/// <summary>
/// Corrects the parallelism from measured throughput with paired trials. From the settled limit it tries one
/// candidate (a step up or down), alternating candidate and settled windows for a few pairs, and moves only when the
/// candidate's mean clearly wins: a deeper queue must gain more than <see cref="UpMargin"/>; a shallower one is taken
/// when it loses less than <see cref="DownMargin"/>, because fewer reads in flight cost less memory and CPU.
/// Alternating cancels slow drifts of a shared machine and averaging beats window-to-window noise; the window after
/// every switch is discarded, since it still carries reads queued under the previous limit. When neither direction
/// pays, the step shrinks and the controller rests a while before trying again, so it follows a device that
/// changes. The first trial waits a second, so that short loads run at the prior. The limit stays within
/// [1, ceiling]. Thread-safe; time comes from the injected <see cref="TimeProvider"/>.
/// </summary>
internal sealed class ParallelismController
{
    /// <summary>The shortest measurement window; long enough to average many completions at small-file rates.</summary>
    internal static readonly TimeSpan DefaultWindow = TimeSpan.FromMilliseconds(50);

    /// <summary>How much more a deeper queue must deliver to be taken.</summary>
    internal const double UpMargin = 0.05;

    /// <summary>How much less a shallower queue may deliver and still be taken.</summary>
    internal const double DownMargin = 0.03;

    /// <summary>Windows measured at each of the two limits of a trial.</summary>
    internal const int SamplesPerLimit = 3;

    /// <summary>Windows spent at the settled limit after a round in which neither direction paid.</summary>
    internal const int RestWindows = 10;

    /// <summary>
    /// Windows at the initial limit before the first trial (1 s). A trial takes about 0.6 s and costs while it runs;
    /// most start-up loads are over sooner, and the prior serves them better (docs/measurements/benchmarks.md).
    /// </summary>
    internal const int InitialRestWindows = 20;

    private const double InitialStep = 2.0;
    private const double MinimumStep = 1.2;
    private const int MinimumCompletionsPerWindow = 8;

    private readonly object _sync = new();
    private readonly TimeProvider _time;
    private readonly int _ceiling;
    private readonly bool _countFiles;
    private readonly List<int> _history;
    private readonly List<double> _settledSamples = [];
    private readonly List<double> _candidateSamples = [];
    private long _windowStart;
    private long _windowFiles;
    private long _windowBytes;
    private int _limit;
    private int _settled;
    private int? _candidate;
    private int _direction;
    private int _failedDirections;
    private int _restWindows;
    private double _step = InitialStep;
    private bool _settling;

    /// <param name="initial">The limit to start from (the policy's prior).</param>
    /// <param name="ceiling">The highest limit (the read block's MaxDegreeOfParallelism).</param>
    /// <param name="countFiles">Measure files per second (small files: requests are the cost) rather than bytes per second.</param>
    /// <param name="time">The clock of the measurement windows.</param>
    public ParallelismController(int initial, int ceiling, bool countFiles, TimeProvider time)
    {
        _ceiling = Math.Max(1, ceiling);
        _limit = _settled = Math.Clamp(initial, 1, _ceiling);
        _countFiles = countFiles;
        _time = time;
        _direction = _settled < _ceiling ? 1 : -1;
        _history = [_settled];
        _restWindows = InitialRestWindows;
        _windowStart = time.GetTimestamp();
    }

    /// <summary>The limit in effect now (during a trial, possibly the candidate).</summary>
    public int Limit
    {
        get { lock (_sync) return _limit; }
    }

    /// <summary>The limit the controller has settled on: where it returns between trials.</summary>
    public int Settled
    {
        get { lock (_sync) return _settled; }
    }

    /// <summary>The settled limits in the order they were taken, starting with the initial one.</summary>
    public IReadOnlyList<int> History
    {
        get { lock (_sync) return _history.ToArray(); }
    }

    /// <summary>Records completed work; returns the new limit when this completion closed a window that changed it.</summary>
    /// <remarks>Called by every read thread after every file: lock-free unless this call closes a window.</remarks>
    public int? OnCompleted(long bytes, int files)
    {
        Interlocked.Add(ref _windowBytes, bytes);
        long windowFiles = Interlocked.Add(ref _windowFiles, files);
        if (_time.GetElapsedTime(Volatile.Read(ref _windowStart)) < DefaultWindow
            || windowFiles < Math.Min(MinimumCompletionsPerWindow, Volatile.Read(ref _limit)))
        {
            return null;
        }

        // One thread closes the window; the others go on reading.
        if (!Monitor.TryEnter(_sync))
        {
            return null;
        }

        try
        {
            TimeSpan elapsed = _time.GetElapsedTime(_windowStart);
            if (elapsed < DefaultWindow)
            {
                return null; // Another thread closed it first.
            }

            long windowFilesDone = Interlocked.Exchange(ref _windowFiles, 0);
            long windowBytesDone = Interlocked.Exchange(ref _windowBytes, 0);
            double throughput = (_countFiles ? windowFilesDone : windowBytesDone) / elapsed.TotalSeconds;
            Volatile.Write(ref _windowStart, _time.GetTimestamp());
            if (_settling)
            {
                _settling = false;
                return null;
            }

            (_limit == _candidate ? _candidateSamples : _settledSamples).Add(throughput);
            int next = Next();
            if (next == _limit)
            {
                return null;
            }

            Volatile.Write(ref _limit, next);
            _settling = true;
            return next;
        }
        finally
        {
            Monitor.Exit(_sync);
        }
    }

    private int Next()
    {
        if (_candidate is null)
        {
            if (_restWindows > 0)
            {
                _restWindows--;
                return _settled;
            }

            _candidate = StartTrial();
            return _candidate ?? _settled;
        }

        if (_candidateSamples.Count < SamplesPerLimit || _settledSamples.Count < SamplesPerLimit)
        {
            // Alternate, so that both limits see the same stretch of the machine's weather.
            return _limit == _candidate && _settledSamples.Count < SamplesPerLimit ? _settled
                : _candidateSamples.Count < SamplesPerLimit ? _candidate.Value
                : _settled;
        }

        int candidate = _candidate.Value;
        double ratio = _candidateSamples.Average() / _settledSamples.Average();
        bool deeper = candidate > _settled;
        bool accepted = deeper ? ratio > 1 + UpMargin : ratio > 1 - DownMargin;
        _candidate = null;
        _candidateSamples.Clear();
        _settledSamples.Clear();
        if (accepted)
        {
            _settled = candidate;
            _history.Add(candidate);
            _failedDirections = 0;
            _direction = deeper ? 1 : -1;
            return candidate;
        }

        _failedDirections |= deeper ? 1 : 2;
        _direction = deeper ? -1 : 1;
        if (_failedDirections == 3)
        {
            // Neither way pays: settled. Look again later, in smaller steps.
            _failedDirections = 0;
            _step = Math.Max(MinimumStep, Math.Sqrt(_step));
            _restWindows = RestWindows;
        }

        return _settled;
    }

    /// <summary>The next limit to try from the settled one, or <see langword="null"/> when there is nowhere to go.</summary>
    private int? StartTrial()
    {
        for (int attempt = 0; attempt < 2; attempt++)
        {
            int candidate = Step(_settled, _direction);
            if (candidate != _settled)
            {
                return candidate;
            }

            _failedDirections |= _direction > 0 ? 1 : 2;
            _direction = -_direction;
        }

        _restWindows = RestWindows;
        return null;
    }

    private int Step(int from, int direction)
    {
        int next = direction > 0
            ? Math.Max(from + 1, (int)Math.Round(from * _step))
            : Math.Min(from - 1, (int)Math.Round(from / _step));
        return Math.Clamp(next, 1, _ceiling);
    }
}
