using System.Diagnostics;
using System.Runtime.Versioning;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Prefetch;

// Collections here hold classes, never structs, and walk arrays: the runtime ships shared code precompiled for
// reference types only, and a start at the top of Main should not wait for the JIT (docs/startup-manifest.md).
internal sealed partial class ManifestReplay
{
    /// <summary>
    /// Bytes asked of the disk and not yet known to be read. Deep on solid-state and unknown devices, where the
    /// kernel queues all of a start's reads at once; shallow on a spinning disk, so that the application's own reads
    /// wait behind little and the end of start-up stops the replay soon (16 MiB is about a tenth of a second at
    /// 120 MB/s). The runs are asked for in first-use order on every device: on a spinning disk the kernel's
    /// scheduler (mq-deadline, BFQ) sends what is queued in the order of its sectors, one sweep per window.
    /// </summary>
    private const long Window = 64L * 1024 * 1024;

    private const long RotationalWindow = 16L * 1024 * 1024;

    /// <summary>On a spinning disk a gap of up to 1 MiB between two ranges is read with them: one request instead of two.</summary>
    private const long RotationalMergeGap = 1024 * 1024;

    [UnsupportedOSPlatform("windows")]
    private ReplayOutcome RunAdvising()
    {
        long started = Stopwatch.GetTimestamp();
        var files = new List<ReplayFile>();
        try
        {
            var runs = new List<MissingRun>();
            var devices = new List<DeviceSettings>();
            var residency = new ResidencyRuns();
            long cached = 0;
            int unchanged = 0, changed = 0;
            foreach (StartupManifestFile file in InFirstUseOrder(manifest.FileArray))
            {
                if (stop.IsCancellationRequested)
                {
                    return new ReplayOutcome(unchanged, changed, 0, cached, false, true, Stopwatch.GetElapsedTime(started));
                }

                SafeFileHandle? handle = OpenUnchanged(file, out FileVersion version);
                if (handle is null)
                {
                    changed++;
                    continue;
                }

                unchanged++;
                StartupManifestRange[]? uncached = Uncached(handle, file, ref cached, out bool partlyCached);
                if (uncached is null)
                {
                    handle.Dispose(); // All cached, the warm start's common case: nothing more to know of it.
                    continue;
                }

                var replayed = new ReplayFile(file, handle, SettingsFor(version.DeviceId, devices));
                files.Add(replayed);
                DisableReadAhead(handle);
                residency.Clear();
                if (!partlyCached || !PageResidency.TryGetRuns(handle, uncached, file.Length, residency))
                {
                    // Not cached at all (a cold start's common case), or not mappable: every byte is missing.
                    foreach (StartupManifestRange range in uncached)
                    {
                        residency.Add(range.Offset, Math.Min(range.End, file.Length), resident: false);
                    }
                }

                cached += AddMissingRuns(replayed, residency, runs);
            }

            bool rotational = false;
            foreach (DeviceSettings device in devices)
            {
                rotational |= device.Rotational;
            }

            return Submit(runs, unchanged, rotational ? RotationalWindow : Window, cached, changed, started);
        }
        finally
        {
            foreach (ReplayFile file in files)
            {
                file.Handle.Dispose();
            }
        }
    }

    /// <summary>
    /// The ranges of <paramref name="file"/> not known to be cached, adding the bytes of those that are to
    /// <paramref name="cached"/>; <see langword="null"/> when every range is. Linux asks <c>cachestat</c> per range;
    /// <paramref name="partlyCached"/> tells whether a range returned needs <see cref="PageResidency.TryGetRuns"/> to
    /// tell its cached pages from the others (always, where nothing answers cheaply); the others are missing whole.
    /// </summary>
    private static StartupManifestRange[]? Uncached(SafeFileHandle handle, StartupManifestFile file, ref long cached, out bool partlyCached)
    {
        StartupManifestRange[] ranges = file.RangeArray;
        partlyCached = true;
        if (!OperatingSystem.IsLinux())
        {
            return ranges;
        }

        StartupManifestRange[]? uncached = null;
        int count = 0;
        long cachedHere = 0;
        bool partly = false;
        foreach (StartupManifestRange range in ranges)
        {
            RangeCaching caching = PageResidency.CachingLinux(handle, range.Offset, range.Length, file.Length);
            if (caching == RangeCaching.Unknown)
            {
                // Every range goes to the residency map, which counts the cached ones itself: none is counted here.
                return ranges;
            }

            if (caching == RangeCaching.All)
            {
                cachedHere += Math.Max(0, Math.Min(range.End, file.Length) - range.Offset);
            }
            else
            {
                partly |= caching == RangeCaching.Partly;
                (uncached ??= new StartupManifestRange[ranges.Length])[count++] = range;
            }
        }

        cached += cachedHere;
        partlyCached = partly;

        if (uncached is null || count == uncached.Length)
        {
            return uncached;
        }

        var exact = new StartupManifestRange[count];
        Array.Copy(uncached, exact, count);
        return exact;
    }

    /// <summary>Adds the runs of <paramref name="file"/> that are not cached, joined across small gaps where the device wants it; returns the bytes that are cached.</summary>
    private static long AddMissingRuns(ReplayFile file, ResidencyRuns residency, List<MissingRun> runs)
    {
        long cached = 0;
        MissingRun? last = null;
        for (int i = 0; i < residency.Count; i++)
        {
            long start = residency.Start(i), end = residency.End(i);
            if (residency.IsResident(i))
            {
                cached += end - start;
            }
            else if (last is not null && start - last.End <= file.Device.MergeGap)
            {
                last.End = end;
            }
            else
            {
                runs.Add(last = new MissingRun(file, start, end));
            }
        }

        return cached;
    }

    /// <summary>
    /// Asks for each run in order, keeping at most <paramref name="window"/> bytes asked for and not known to be read;
    /// stops when the budget is spent or the start ends. A run is known to be read once a one-byte read of its last
    /// page returns: that read waits for the kernel's read of the page, or reads the page if the kernel dropped it.
    /// </summary>
    [UnsupportedOSPlatform("windows")]
    private ReplayOutcome Submit(List<MissingRun> runs, int fileCount, long window, long cached, int changed, long started)
    {
        int oldest = 0;
        long inFlight = 0, requested = 0;
        bool budgetReached = false;
        for (int i = 0; i < runs.Count; i++)
        {
            hooks.BeforeRange?.Invoke(i);
            if (stop.IsCancellationRequested)
            {
                return new ReplayOutcome(fileCount, changed, requested, cached, false, true, Stopwatch.GetElapsedTime(started));
            }

            if (requested >= budget)
            {
                budgetReached = true;
                runs.RemoveRange(i, runs.Count - i);
                break;
            }

            MissingRun run = runs[i];
            run.End = Math.Min(run.End, run.Start + (budget - requested));
            for (; oldest < i && inFlight + run.Length > window; oldest++)
            {
                AwaitRead(runs[oldest]);
                inFlight -= runs[oldest].Length;
            }

            Advise(run);
            inFlight += run.Length;
            requested += run.Length;
        }

        // Everything was asked for: what is left in flight is the kernel's; waiting only makes the time honest.
        for (; oldest < runs.Count && !stop.IsCancellationRequested; oldest++)
        {
            AwaitRead(runs[oldest]);
        }

        return new ReplayOutcome(fileCount, changed, requested, cached, budgetReached, false, Stopwatch.GetElapsedTime(started));
    }

    [UnsupportedOSPlatform("windows")]
    private static unsafe void AwaitRead(MissingRun run)
    {
        byte last;
        _ = Interop.PRead(run.File.Handle, &last, 1, run.End - 1);
    }

    [UnsupportedOSPlatform("windows")]
    private static void Advise(MissingRun run)
    {
        long chunk = run.File.Device.AdviceChunk;
        for (long at = run.Start; at < run.End; at += chunk)
        {
            long length = Math.Min(chunk, run.End - at);
            if (OperatingSystem.IsLinux())
            {
                AdviseLinux(run.File.Handle, at, length);
            }
            else
            {
                AdviseOSX(run.File.Handle, at, length);
            }
        }
    }

    [UnsupportedOSPlatform("windows")]
    private static void DisableReadAhead(SafeFileHandle handle)
    {
        if (OperatingSystem.IsLinux())
        {
            DisableReadAheadLinux(handle);
        }
        else
        {
            DisableReadAheadOSX(handle);
        }
    }

    /// <summary>The settings of the device <paramref name="deviceId"/>, described once per replay.</summary>
    private static DeviceSettings SettingsFor(ulong deviceId, List<DeviceSettings> devices)
    {
        foreach (DeviceSettings known in devices)
        {
            if (known.DeviceId == deviceId)
            {
                return known;
            }
        }

        DeviceSettings device = OperatingSystem.IsLinux() ? SettingsForLinux(deviceId) : new DeviceSettings(deviceId, false, OSXAdviceChunk, 0);
        devices.Add(device);
        return device;
    }

    /// <summary>How the replay treats a device: its window, the largest advice per call, the gap worth reading.</summary>
    private sealed record DeviceSettings(ulong DeviceId, bool Rotational, long AdviceChunk, long MergeGap);

    /// <summary>A file being replayed: its record, its descriptor, its device.</summary>
    private sealed class ReplayFile(StartupManifestFile manifest, SafeFileHandle handle, DeviceSettings device)
    {
        public StartupManifestFile Manifest { get; } = manifest;

        public SafeFileHandle Handle { get; } = handle;

        public DeviceSettings Device { get; } = device;
    }

    /// <summary>Bytes of a file to ask for: not in the cache.</summary>
    private sealed class MissingRun(ReplayFile file, long start, long end)
    {
        public ReplayFile File { get; } = file;

        public long Start { get; } = start;

        public long End { get; set; } = end;

        public long Length => End - Start;
    }
}
