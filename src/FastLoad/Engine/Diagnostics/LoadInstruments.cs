using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;

namespace FastLoad.Engine;

/// <summary>
/// The instruments a loader records to: from the host's <see cref="IMeterFactory"/> (created with the loader), or one
/// process-wide meter. Creating a meter costs a new process more than loading a few hundred files, so the process-wide
/// one is created in the background: after the garbage collection that follows a process's first load, by a reader
/// thread that has finished, or at once when a load has recorded many files; what loads record before then is kept
/// and recorded when it exists, so that no file goes uncounted. Gauges of what runs now (active reads, parallelism) start
/// with the instruments.
/// </summary>
internal sealed class LoadInstruments
{
    // Durations kept before the instruments exist (8 bytes each); reaching this many starts their creation at once.
    // High enough that a large load does not share its cores with creating the meter: a warm load of ten thousand
    // files is over before the meter would be.
    private const int PendingDurationLimit = 64 * 1024;

    // After a first small load, the meter waits this long, so that it does not compete with the rest of start-up.
    private static readonly TimeSpan CreationDelay = TimeSpan.FromSeconds(1);

    private static readonly object SharedGate = new();
    private static Instruments? s_shared;
    private static bool s_sharedRequested;
    private static readonly Pending SharedPending = new();

    private readonly Instruments? _own;

    public LoadInstruments(IMeterFactory? meterFactory)
    {
        if (meterFactory is not null)
        {
            _own = new Instruments(meterFactory.Create(FastLoadMetrics.MeterName));
        }
    }

    private Instruments? Current => _own ?? Volatile.Read(ref s_shared);

    /// <summary>Starts the process-wide instruments' creation, if they are used and not started yet.</summary>
    /// <param name="soon">
    /// Create them now, on a thread of their own (many measurements are waiting); otherwise on the finalizer thread after
    /// the next garbage collection, so that a load starts no thread for them.
    /// </param>
    public void RequestCreation(bool soon = false)
    {
        if (!ClaimCreation())
        {
            return;
        }

        if (soon)
        {
            StartCreationThread();
            return;
        }

        // Starting a thread costs the calling one a few hundred microseconds in a new process, as much as a small load;
        // the next collection's finalizer hands the creation to the thread pool, off every thread of the load's.
        AfterNextCollection.Run(static () => CreateShared(TimeSpan.Zero));
    }

    /// <remarks>
    /// A method of its own: the precompiled code of a method that names <see cref="Thread"/> loads the framework's
    /// assembly that declares it when the method is first called, and a small load's path never starts this thread.
    /// </remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void StartCreationThread()
    {
        // A thread of its own rather than the thread pool, which a new process would have to start first.
        var thread = new Thread(static _ => CreateShared(TimeSpan.Zero)) { IsBackground = true, Name = "FastLoad metrics" };
        thread.UnsafeStart(null);
    }

    /// <summary>
    /// Creates the process-wide instruments on the calling thread after a pause, if nobody has started to: for a thread
    /// that is done with a load.
    /// </summary>
    public void CreateOnThisThread()
    {
        if (ClaimCreation())
        {
            CreateShared(CreationDelay);
        }
    }

    private bool ClaimCreation()
    {
        if (_own is not null)
        {
            return false;
        }

        lock (SharedGate)
        {
            if (s_sharedRequested)
            {
                return false;
            }

            s_sharedRequested = true;
            return true;
        }
    }

    // A listener that throws loses its measurement; the load goes on: a diagnostic never decides what happens to a file.

    public void FileRead(long bytes, TimeSpan duration)
    {
        try
        {
            if (Current is { } instruments)
            {
                instruments.FilesRead.Add(1);
                instruments.BytesRead.Add(bytes);
                instruments.ReadDuration.Record(duration.TotalSeconds);
                return;
            }

            if (SharedPending.Add(bytes, duration.TotalSeconds) >= PendingDurationLimit)
            {
                RequestCreation(soon: true);
            }
        }
        catch (Exception)
        {
        }
    }

    public void FileFailed()
    {
        try
        {
            if (Current is { } instruments)
            {
                instruments.FilesFailed.Add(1);
                return;
            }

            SharedPending.AddFailure();
        }
        catch (Exception)
        {
        }
    }

    /// <summary>Counts a read as running; returns whether it was counted, to be passed to <see cref="ReadEnded"/>.</summary>
    public bool ReadStarted() => Current is { } instruments && TryAdd(instruments.ReadsActive, 1);

    public void ReadEnded(bool counted)
    {
        if (counted)
        {
            TryAdd(Current!.ReadsActive, -1);
        }
    }

    /// <summary>Adds a change of parallelism; returns whether it was counted, so that only counted changes are undone.</summary>
    public bool ParallelismChanged(long delta) => Current is { } instruments && TryAdd(instruments.Parallelism, delta);

    private static bool TryAdd(UpDownCounter<long> counter, long delta)
    {
        try
        {
            counter.Add(delta);
            return true;
        }
        catch (Exception)
        {
            return false;
        }
    }

    /// <summary>Creates the process-wide instruments; never throws (it runs on a pool thread or one of its own).</summary>
    private static void CreateShared(TimeSpan delay)
    {
        if (delay > TimeSpan.Zero)
        {
            Thread.Sleep(delay);
        }

        Instruments instruments;
        try
        {
            instruments = new Instruments(new Meter(FastLoadMetrics.MeterName));
        }
        catch (Exception)
        {
            // A listener threw as an instrument was published: loads record nothing rather than keep measurements forever.
            SharedPending.Discard();
            return;
        }

        lock (SharedGate)
        {
            Volatile.Write(ref s_shared, instruments);
        }

        try
        {
            // Records made from now on go to the instruments; those made before are in the pending totals.
            SharedPending.FlushTo(instruments);
        }
        catch (Exception)
        {
            // A listener threw: the pending totals are lost to it, and later records go to the instruments all the same.
        }
    }

    private sealed class Instruments(Meter meter)
    {
        public Counter<long> FilesRead { get; } = meter.CreateCounter<long>(FastLoadMetrics.FilesRead, "{file}", "Files loaded.");

        public Counter<long> FilesFailed { get; } = meter.CreateCounter<long>(FastLoadMetrics.FilesFailed, "{file}", "Files that failed to load.");

        public Counter<long> BytesRead { get; } = meter.CreateCounter<long>(FastLoadMetrics.BytesRead, "By", "Bytes loaded.");

        public Histogram<double> ReadDuration { get; } = meter.CreateHistogram<double>(FastLoadMetrics.ReadDuration, "s", "Time to read one whole file.");

        public UpDownCounter<long> ReadsActive { get; } = meter.CreateUpDownCounter<long>(FastLoadMetrics.ReadsActive, "{read}", "File reads running now.");

        public UpDownCounter<long> Parallelism { get; } = meter.CreateUpDownCounter<long>(
            FastLoadMetrics.Parallelism, "{read}", "Parallelism of the loads running now.");
    }

    /// <summary>What loads recorded before the process-wide instruments existed.</summary>
    private sealed class Pending
    {
        private readonly object _gate = new();
        // An array rather than a List<double>: that instantiation would be compiled at run time, on the start-up path.
        private double[]? _durations = new double[64];
        private int _count;
        private long _bytes;
        private long _failures;

        /// <summary>Keeps one file's measurements; returns how many are kept, or 0 once flushed (the caller then records directly).</summary>
        public int Add(long bytes, double seconds)
        {
            lock (_gate)
            {
                if (_durations is null)
                {
                    // Flushed between the caller's check and now (the instruments exist), or discarded (they never will).
                    if (Volatile.Read(ref s_shared) is { } shared)
                    {
                        shared.FilesRead.Add(1);
                        shared.BytesRead.Add(bytes);
                        shared.ReadDuration.Record(seconds);
                    }

                    return 0;
                }

                if (_count == _durations.Length)
                {
                    var larger = new double[_count * 2];
                    Array.Copy(_durations, larger, _count);
                    _durations = larger;
                }

                _durations[_count++] = seconds;
                _bytes += bytes;
                return _count;
            }
        }

        public void AddFailure()
        {
            lock (_gate)
            {
                if (_durations is null)
                {
                    Volatile.Read(ref s_shared)?.FilesFailed.Add(1);
                    return;
                }

                _failures++;
            }
        }

        /// <summary>The instruments could not be created: nothing is kept from now on.</summary>
        public void Discard()
        {
            lock (_gate)
            {
                _durations = null;
            }
        }

        public void FlushTo(Instruments instruments)
        {
            lock (_gate)
            {
                double[] durations = _durations!;
                _durations = null;
                if (_count > 0)
                {
                    instruments.FilesRead.Add(_count);
                    instruments.BytesRead.Add(_bytes);
                    foreach (double seconds in durations.AsSpan(0, _count))
                    {
                        instruments.ReadDuration.Record(seconds);
                    }
                }

                if (_failures > 0)
                {
                    instruments.FilesFailed.Add(_failures);
                }
            }
        }
    }
}
