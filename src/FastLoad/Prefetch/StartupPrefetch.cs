using System.Diagnostics;
using FastLoad.Prefetch;
using Microsoft.Extensions.Logging;

namespace FastLoad;

/// <summary>
/// Warms the next start of an application. <see cref="Begin(StartupPrefetchOptions, ILogger)"/>, at the top of <c>Main</c>, replays in the background
/// the manifest of what the last start read (the files and byte ranges, into the page cache, within a budget, at low
/// I/O priority, skipping what is cached) and records this start; <see cref="End"/>, when start-up is done, stops the
/// replay and writes this start's manifest for the next one. Nothing the replay reads is handed to the application,
/// and a missing, stale or corrupt manifest never fails a start: it is logged and rewritten.
/// </summary>
/// <remarks>
/// In a host, <c>services.AddStartupPrefetch(prefetch)</c> (FastLoad.Hosting) ends the start at
/// <c>IHostApplicationLifetime.ApplicationStarted</c>. Before the .NET host itself starts, <c>fastload prefetch</c>
/// replays the same manifest. docs/startup-manifest.md describes the manifest and the measurements.
/// </remarks>
public sealed partial class StartupPrefetch : IDisposable
{
    /// <summary>How long <see cref="Dispose"/> waits for the manifest to be written before it lets the application go.</summary>
    private static readonly TimeSpan DisposeWait = TimeSpan.FromSeconds(5);

    /// <summary>The longest <see cref="Begin(StartupPrefetchOptions?, ILogger?)"/> waits for a replay on a spinning disk.</summary>
    private static readonly TimeSpan MaxBeginWait = TimeSpan.FromSeconds(10);

    // Set once the replay is over (or was never to be): Begin waits for it where the application lies on a spinning disk.
    private readonly ManualResetEventSlim _replayed = new(false);
    private readonly bool _beginWaits;

    private readonly StartupPrefetchOptions _options;
    private readonly PrefetchTestHooks _hooks;
    private readonly DeferredLogger _log;
    private readonly CancellationTokenSource _stopReplay = new();
    private readonly ManualResetEventSlim _ended = new();
    private readonly ManualResetEventSlim _disposing = new();
    private readonly LoadedFiles? _loadedFiles;
    private readonly long? _diskReadBytesAtBegin;
    private readonly bool _warm;

    // A monitor, not a System.Threading.Lock: made at the top of Main (LoadObservers says why).
    private readonly object _threadStart = new();
    private Thread? _thread;
    private bool _threadFailed;
    private TaskCompletionSource<StartupPrefetchSummary>? _completion;
    private int _endCalls;
    private int _disposeCalls;

    private StartupPrefetch(StartupPrefetchOptions options, ILogger? logger, PrefetchTestHooks hooks)
    {
        _options = options;
        _hooks = hooks;
        _log = new DeferredLogger(logger);
        _loadedFiles = options.Record ? new LoadedFiles(hooks.RecordFilter) : null;
        _diskReadBytesAtBegin = hooks.DiskReadBytes is { } diskReadBytes ? diskReadBytes() : ProcessDiskReads.BytesSoFar();
        _warm = _diskReadBytesAtBegin < options.ColdStartThreshold;

        // Only a cold start, which replays, looks at the disk: a warm start's Begin is kept to the least it must do.
        _beginWaits = !_warm && options.WaitOnSpinningDisk && (hooks.AppOnSpinningDisk ?? StorageProbe.MaySpin(AppContext.BaseDirectory));
    }

    /// <summary>Gets a task that completes, with what the start found, replayed and recorded, once its manifest is written (or the start is disposed).</summary>
    /// <remarks>It never faults: problems are logged and described in the summary.</remarks>
    public Task<StartupPrefetchSummary> Completion => CompletionSource().Task;

    /// <summary>
    /// Begins a start: replays the last start's manifest in the background, at once, and records this start until
    /// <see cref="End"/>. Returns without waiting for anything. A warm start (one that has read less than
    /// <see cref="StartupPrefetchOptions.ColdStartThreshold"/> from the disk so far) is not replayed, and starts no thread
    /// before <see cref="End"/>.
    /// </summary>
    /// <param name="options">The options, copied; <see langword="null"/> for the defaults.</param>
    /// <param name="logger">
    /// Where to log what the start finds; <see langword="null"/> to keep the messages until <see cref="End"/> is given a
    /// logger (at the top of <c>Main</c> there is usually none yet).
    /// </param>
    /// <returns>The start; call <see cref="End"/> when start-up is done, and dispose it when the application ends.</returns>
    /// <exception cref="ArgumentException"><paramref name="options"/> are not valid; the message names the property.</exception>
    public static StartupPrefetch Begin(StartupPrefetchOptions? options = null, ILogger? logger = null) =>
        Begin(options, logger, PrefetchTestHooks.None);

    internal static StartupPrefetch Begin(StartupPrefetchOptions? options, ILogger? logger, PrefetchTestHooks hooks)
    {
        // The defaults need neither a copy nor a check: a warm start's Begin is kept to the least the runtime must load.
        var prefetch = new StartupPrefetch(options is null ? new StartupPrefetchOptions() : Checked(options.Clone()), logger, hooks);
        prefetch.StartSystemRecorder();
        if (!prefetch._warm && prefetch.StartThread() is not null && prefetch._beginWaits)
        {
            // Bounded: a replay that takes longer (a huge manifest, a disk far slower than a spinning one) goes on alone.
            prefetch._replayed.Wait(MaxBeginWait);
        }

        return prefetch;
    }

    /// <summary>
    /// Replays a manifest into the page cache, whatever build recorded it (each file is still checked against its
    /// length and last write time), within <see cref="StartupPrefetchOptions.ReplayBudget"/>, at low I/O priority:
    /// what <c>fastload prefetch</c> does before an application starts.
    /// </summary>
    /// <param name="manifestPath">The manifest.</param>
    /// <param name="options">The options (only the budget counts); <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Stops the replay; what was asked of the disk is still read.</param>
    /// <returns>What the replay did.</returns>
    /// <exception cref="ArgumentException"><paramref name="manifestPath"/> is <see langword="null"/> or empty, or <paramref name="options"/> are not valid.</exception>
    /// <exception cref="FileNotFoundException">There is no manifest at <paramref name="manifestPath"/>.</exception>
    /// <exception cref="InvalidDataException">The file is not a valid manifest; the message says what is wrong.</exception>
    /// <exception cref="IOException">The manifest cannot be read.</exception>
    /// <exception cref="UnauthorizedAccessException">The manifest cannot be opened for reading.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public static Task<StartupPrefetchSummary> ReplayAsync(
        string manifestPath, StartupPrefetchOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(manifestPath);
        long budget = Checked(options).ReplayBudget;

        // A thread of its own, whose I/O priority is lowered only for the replay's reads: the task's continuations
        // may run on it, and must not run, or create threads, at the replay's priority.
        return Task.Factory.StartNew(
            () =>
            {
                cancellationToken.ThrowIfCancellationRequested();
                string path = Path.GetFullPath(manifestPath);
                StartupManifest manifest = StartupManifest.Read(path);
                ReplayOutcome outcome;
                using (BackgroundPriority.LowerIo())
                {
                    outcome = new ManifestReplay(manifest, budget, PrefetchTestHooks.None, cancellationToken).Run();
                }

                cancellationToken.ThrowIfCancellationRequested();
                return Summarize(new Found(manifest, StartupManifestStatus.Replayed, path, null), outcome, null);
            },
            cancellationToken,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);
    }

    /// <summary>
    /// Ends the start: stops the replay where it is, and records this start into the manifest on the background thread,
    /// <see cref="StartupPrefetchOptions.RecordDelay"/> later (or at <see cref="Dispose"/>, if that comes first), at low
    /// CPU priority; <see cref="Completion"/> tells when it is written. Returns at once. Later calls do nothing but
    /// attach a logger if none was.
    /// </summary>
    /// <param name="logger">
    /// Where to log, if <see cref="Begin(StartupPrefetchOptions, ILogger)"/> was given no logger: the messages kept since then first. <see langword="null"/>
    /// to keep them unlogged.
    /// </param>
    public void End(ILogger? logger = null)
    {
        if (logger is not null)
        {
            _log.Attach(logger);
        }

        if (Volatile.Read(ref _disposeCalls) == 0 && Interlocked.Exchange(ref _endCalls, 1) == 0)
        {
            EndSystemRecorder(discard: false);
            Stop();
            StartThread();
        }
    }

    /// <summary>
    /// Stops the replay; a start disposed before <see cref="End"/> is not recorded (a start that failed is no model for
    /// the next). After <see cref="End"/>, records at once if the start was not recorded yet, and waits up to 5 seconds
    /// for the manifest to be written, so that an application that returns from <c>Main</c> keeps it: dispose the start
    /// when the application ends (a <c>using</c> declaration at the top of <c>Main</c>).
    /// </summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposeCalls, 1) != 0)
        {
            return;
        }

        if (Volatile.Read(ref _endCalls) == 0)
        {
            EndSystemRecorder(discard: true);
            Stop();
        }

        _disposing.Set();
        if (StartThread() is { } thread && Thread.CurrentThread != thread)
        {
            thread.Join(DisposeWait);
        }
    }

    /// <summary><paramref name="options"/>, or the defaults; throws naming each property that is not valid.</summary>
    private static StartupPrefetchOptions Checked(StartupPrefetchOptions? options)
    {
        options ??= new StartupPrefetchOptions();
        return options.Validate() is { } failure ? throw new ArgumentException(failure, nameof(options)) : options;
    }

    private static StartupPrefetchSummary Summarize(
        Found found, ReplayOutcome outcome, Recording? recording, long? diskReadBytesAtBegin = null, string? problem = null) => new()
    {
        Problem = problem,
        DiskReadBytesAtBegin = diskReadBytesAtBegin,
        ManifestStatus = found.Status,
        ManifestPath = found.Path,
        ManifestProblem = found.Problem,
        FileCount = outcome.FileCount,
        ChangedFileCount = outcome.ChangedFileCount,
        UnopenedFileCount = outcome.UnopenedFileCount,
        RequestedBytes = outcome.RequestedBytes,
        CachedBytes = outcome.CachedBytes,
        BudgetReached = outcome.BudgetReached,
        StoppedByEnd = outcome.Stopped,
        ReplayDuration = outcome.Elapsed,
        RecordedPath = recording?.Path,
        ManifestWritten = recording?.Written ?? false,
        RecordedFileCount = recording?.FileCount ?? 0,
        RecordedByteCount = recording?.ByteCount ?? 0,
    };

    /// <summary>
    /// The source of <see cref="Completion"/>, made when first asked for rather than in <see cref="Begin(StartupPrefetchOptions, ILogger)"/>:
    /// a task of a FastLoad type is a type the runtime builds for FastLoad alone (0.4-0.8 ms at the top of <c>Main</c>).
    /// </summary>
    private TaskCompletionSource<StartupPrefetchSummary> CompletionSource()
    {
        TaskCompletionSource<StartupPrefetchSummary>? completion = Volatile.Read(ref _completion);
        if (completion is null)
        {
            completion = new TaskCompletionSource<StartupPrefetchSummary>(TaskCreationOptions.RunContinuationsAsynchronously);
            completion = Interlocked.CompareExchange(ref _completion, completion, null) ?? completion;
        }

        return completion;
    }

    /// <summary>
    /// Makes and starts the background thread, once: at <see cref="Begin(StartupPrefetchOptions, ILogger)"/>, or for a
    /// warm start at <see cref="End"/> or <see cref="Dispose"/>. Under a lock, so that <see cref="Dispose"/> never joins a
    /// thread that <see cref="End"/> is still starting on another thread; returns the thread, or <see langword="null"/>
    /// where none could be created (a pids cgroup or <c>RLIMIT_NPROC</c> at its limit): then the start ends there, its
    /// problem logged and in the summary, and the application goes on without it.
    /// </summary>
    private Thread? StartThread()
    {
        lock (_threadStart)
        {
            if (_thread is null && !_threadFailed)
            {
                try
                {
                    _hooks.BeforeThreadStart?.Invoke();
                    var thread = new Thread(Run) { IsBackground = true, Name = "FastLoad startup prefetch" };
                    thread.UnsafeStart();
                    _thread = thread;
                }
                catch (Exception ex)
                {
                    _threadFailed = true;
                    _loadedFiles?.Dispose();
                    _log.Write(log => log.StartupPrefetchFailed(ex));
                    CompletionSource().TrySetResult(Summarize(
                        new Found(null, StartupManifestStatus.NotFound, null, null), default, null, _diskReadBytesAtBegin, ProblemOf(ex)));
                }
            }

            return _thread;
        }
    }

    private static string ProblemOf(Exception exception) => $"{exception.GetType().Name}: {exception.Message}";

    private void Stop()
    {
        _stopReplay.Cancel();
        _ended.Set();
    }

    /// <summary>
    /// The start's background thread: find and replay the last manifest, wait for the end, record this start. A warm
    /// start's begins at the end and waits out the record delay first, off the path of the first requests: it looks
    /// for the manifest only to say why it was not replayed and where to write.
    /// </summary>
    private void Run()
    {
        Found found = new(null, StartupManifestStatus.NotFound, null, null);
        ReplayOutcome outcome = default;
        Recording? recording = null;
        string? problem = null;
        try
        {
            // Decided once: a warm start's thread begins at the end, so it waits out the record delay first.
            bool? records = _warm ? WaitToRecord() : null;
            string buildKey = _options.BuildKey ?? BuildKey.OfThisProcess();
            ManifestLocation location = ManifestLocation.For(_options.ManifestPath, _hooks);
            found = Find(location, buildKey);
            if (found.Manifest is not null && (_systemReplays || _options.ReplayBudget == 0))
            {
                found = found with { Status = StartupManifestStatus.NotReplayed };
            }
            else if (found.Manifest is not null && _warm)
            {
                found = found with { Status = StartupManifestStatus.SkippedWarm };
                (string path, long diskReadBytes) = (found.Path!, _diskReadBytesAtBegin!.Value);
                _log.Write(log => log.StartupManifestSkippedWarm(path, diskReadBytes, _options.ColdStartThreshold));
            }
            else if (found.Manifest is not null)
            {
                // This thread logs and completes Completion, whose continuations may create pool threads: its I/O
                // priority is low only while the replay reads, and not at all while Begin waits for it.
                using (_beginWaits ? (BackgroundPriority.IoScope?)null : BackgroundPriority.LowerIo())
                {
                    outcome = new ManifestReplay(found.Manifest, _options.ReplayBudget, _hooks, _stopReplay.Token, sweep: _beginWaits).Run();
                }

                ReplayOutcome replayed = outcome;
                _log.Write(log => log.StartupManifestReplayed(
                    found.Path!, replayed.RequestedBytes, replayed.CachedBytes, replayed.FileCount, replayed.ChangedFileCount, replayed.UnopenedFileCount,
                    (long)replayed.Elapsed.TotalMilliseconds, replayed.BudgetReached, replayed.Stopped));
            }

            _replayed.Set();
            _hooks.AfterReplay?.Invoke();
            _ended.Wait();
            _log.Flush();
            if (records ?? WaitToRecord())
            {
                recording = Record(buildKey, location, found.Path);
            }
        }
        catch (Exception ex)
        {
            // Whatever happens here, the application starts as it would have without the prefetch.
            problem = ProblemOf(ex);
            _log.Write(log => log.StartupPrefetchFailed(ex));
        }
        finally
        {
            _replayed.Set();
            _loadedFiles?.Dispose();
            _log.Flush();
            CompletionSource().TrySetResult(Summarize(found, outcome, recording, _diskReadBytesAtBegin, problem));
        }
    }

    /// <summary>
    /// Waits for the end of the start, then, if it is to be recorded, out the record delay (or until disposed); says
    /// whether it is. Only a start that was ended is recorded: one disposed first never set <see cref="_endCalls"/>.
    /// </summary>
    private bool WaitToRecord()
    {
        _ended.Wait();
        if (_loadedFiles is null || Volatile.Read(ref _endCalls) == 0)
        {
            return false;
        }

        _disposing.Wait(_options.RecordDelay);
        return true;
    }

    /// <summary>The first manifest of this build among the places looked at; else why none is usable.</summary>
    private Found Find(ManifestLocation location, string buildKey)
    {
        Found? unusable = null;
        foreach (string path in location.Candidates)
        {
            // Most starts find no manifest at the first place looked at (an application folder that is not writable):
            // asked first, so that no exception is thrown and caught on every start, the first of a process being costly.
            if (!File.Exists(path))
            {
                _log.Write(log => log.StartupManifestNotFound(path));
                continue;
            }

            StartupManifest manifest;
            try
            {
                manifest = StartupManifest.Read(path);
            }
            catch (Exception ex) when (ex is FileNotFoundException or DirectoryNotFoundException)
            {
                _log.Write(log => log.StartupManifestNotFound(path));
                continue;
            }
            catch (Exception ex) when (ex is InvalidDataException or IOException or UnauthorizedAccessException)
            {
                _log.Write(log => log.StartupManifestCorrupt(path, ex.Message));
                unusable ??= new Found(null, StartupManifestStatus.Corrupt, path, ex.Message);
                continue;
            }

            if (manifest.BuildKey != buildKey)
            {
                _log.Write(log => log.StartupManifestStale(path, manifest.BuildKey, buildKey));
                unusable ??= new Found(null, StartupManifestStatus.Stale, path, $"recorded by build '{manifest.BuildKey}', not '{buildKey}'");
                continue;
            }

            return new Found(manifest, StartupManifestStatus.Replayed, path, null);
        }

        return unusable ?? new Found(null, StartupManifestStatus.NotFound, null, null);
    }

    /// <summary>This start, recorded and written where it can be; <see langword="null"/> (logged) where no place took it.</summary>
    private Recording? Record(string buildKey, ManifestLocation location, string? foundAt)
    {
        long started = Stopwatch.GetTimestamp();
        (StartupManifest recorded, (string? path, bool written, List<Exception> errors)) = BackgroundPriority.RunLowered(() =>
        {
            StartupManifest recorded = StartupRecorder.Record(_loadedFiles!, buildKey, _options, _hooks, location.Candidates);
            return (recorded, location.Write(ManifestFormat.Write(recorded), foundAt));
        });
        double elapsed = Stopwatch.GetElapsedTime(started).TotalMilliseconds;
        if (path is null)
        {
            _log.Write(log => log.StartupManifestNotWritten(string.Join(", ", location.Candidates), errors.Count == 1 ? errors[0] : new AggregateException(errors)));
            return null;
        }

        _log.Write(log => log.StartupManifestRecorded(written ? LogLevel.Information : LogLevel.Debug, path, Math.Round(elapsed, 1), recorded.FileArray.Length, recorded.ByteCount, written));
        return new Recording(path, written, recorded.FileArray.Length, recorded.ByteCount);
    }

    /// <summary>What a start found of the last manifest: the manifest if it is replayed, and where and why.</summary>
    private sealed record Found(StartupManifest? Manifest, StartupManifestStatus Status, string? Path, string? Problem);

    /// <summary>Where this start's manifest went, and what it holds.</summary>
    private sealed record Recording(string Path, bool Written, int FileCount, long ByteCount);
}
