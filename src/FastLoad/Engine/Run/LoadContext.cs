using FastLoad.FileSystem;
using Microsoft.Extensions.Logging;

namespace FastLoad.Engine;

/// <summary>
/// What every reader of one load shares and only reads: the loader's options, clock, instruments, logger and test
/// hooks, the load's read settings and byte budget, its files and its lifetime (the stop, the count of reader threads).
/// The readers hand what they read to the load's <see cref="DeliveryChannel.Writer"/>, which they are given beside it.
/// </summary>
internal sealed class LoadContext(LoadEngine engine, FileCursor files, LoadLifetime lifetime)
{
    // The most reads at once, for the summary.
    private int _concurrentReads;
    private int _peakConcurrentReads;

    public FileLoaderOptions Options { get; } = engine.Options;

    public ReadSettings ReadSettings { get; } = engine.CreateReadSettings();

    public ByteBudget Budget { get; } = new ByteBudget(engine.Options.MemoryBudget);

    public TimeProvider Time { get; } = engine.Time;

    public LoadInstruments Instruments { get; } = engine.Instruments;

    /// <summary>Where to log; <see langword="null"/> when the loader has no logger, so that logging costs nothing.</summary>
    public ILogger? Logger { get; } = engine.Logger;

    public LoadTestHooks Hooks { get; } = engine.Hooks;

    /// <summary>The set's files, and which is claimed next.</summary>
    public FileCursor Files { get; } = files;

    public LoadLifetime Lifetime { get; } = lifetime;

    public CancellationToken StopToken { get; } = lifetime.StopToken;

    /// <summary>
    /// Whether the load's blocking reads have waited for the device yet, where its reader threads wait for that before
    /// they outnumber the cores; <see langword="null"/> otherwise. Set before any reader starts.
    /// </summary>
    public DeviceWaitSignal? DeviceWait { get; set; }

    /// <summary>The most reads that ran at once.</summary>
    public int PeakConcurrentReads => Volatile.Read(ref _peakConcurrentReads);

    /// <summary>Counts a blocking read as running, for the summary's peak; <see cref="EndRead"/> ends it.</summary>
    public void BeginRead() => InterlockedMax.TryRaise(ref _peakConcurrentReads, Interlocked.Increment(ref _concurrentReads));

    public void EndRead() => Interlocked.Decrement(ref _concurrentReads);

    public void RecordConcurrency(int concurrent) => InterlockedMax.TryRaise(ref _peakConcurrentReads, concurrent);
}
