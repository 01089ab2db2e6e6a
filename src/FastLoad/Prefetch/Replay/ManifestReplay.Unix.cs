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
    /// Bytes asked of the disk and not yet known to be read, on solid-state and unknown devices: a few milliseconds of
    /// the device's time, so that a page fault of the application beside the replay waits behind little (the kernel
    /// queues what is asked in the order asked, whatever its priority, where the device has no I/O scheduler), and
    /// still some 64 requests of 64 KiB at once. On a spinning disk a larger window (16 MiB is about a tenth of a second
    /// at 120 MB/s), as the disk gains from reading more in one sweep. The runs are asked for in first-use order on every
    /// device: on a spinning disk the kernel's scheduler (mq-deadline, BFQ) sends what is queued in the order of its
    /// sectors, one sweep per window.
    /// </summary>
    private const long Window = 4L * 1024 * 1024;

    private const long RotationalWindow = 16L * 1024 * 1024;

    /// <summary>On a spinning disk a gap of up to 1 MiB between two ranges is read with them: one request instead of two.</summary>
    private const long RotationalMergeGap = 1024 * 1024;

    /// <summary>
    /// The most descriptors the replay holds at once. A run's file is opened again when its descriptor was closed to
    /// make room: an open of a file just looked at costs microseconds, a descriptor the application needs costs a
    /// failed start.
    /// </summary>
    private const int MaxHeldFiles = 32;

    [UnsupportedOSPlatform("windows")]
    private ReplayOutcome RunAdvising()
    {
        long started = Stopwatch.GetTimestamp();
        using var held = new HeldFiles(OperatingSystem.IsLinux() ? DescriptorLimitLinux() : MaxHeldFiles);
        var runs = new List<MissingRun>();
        var devices = new List<DeviceSettings>();
        var residency = new ResidencyRuns();
        long cached = 0;
        int unchanged = 0, changed = 0, unopened = 0;
        foreach (StartupManifestFile file in InFirstUseOrder(manifest.FileArray))
        {
            if (stop.IsCancellationRequested)
            {
                return new ReplayOutcome(unchanged, changed, unopened, 0, cached, false, true, Stopwatch.GetElapsedTime(started));
            }

            var replayed = new ReplayFile(file);
            SafeFileHandle? handle = held.Open(replayed, out Opening opening);
            if (handle is null)
            {
                if (opening == Opening.Changed)
                {
                    changed++;
                }
                else
                {
                    unopened++;
                }
                continue;
            }

            unchanged++;
            StartupManifestRange[]? uncached = Uncached(handle, file, ref cached, out bool partlyCached);
            if (uncached is null)
            {
                held.Close(replayed); // All cached, the warm start's common case: nothing more to know of it.
                continue;
            }

            replayed.Device = SettingsFor(replayed.Version.DeviceId, devices);
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

        long window = !rotational ? Window : sweep ? long.MaxValue : RotationalWindow;
        return Submit(runs, held, unchanged, window, cached, changed, unopened, started);
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
            RangeCaching caching = PageCacheRanges.CachingLinux(handle, range.Offset, range.Length, file.Length);
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
            else if (last is not null && start - last.End <= file.Device!.MergeGap)
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
    private ReplayOutcome Submit(List<MissingRun> runs, HeldFiles held, int fileCount, long window, long cached, int changed, int unopened, long started)
    {
        int oldest = 0;
        long inFlight = 0, requested = 0;
        bool budgetReached = false;
        for (int i = 0; i < runs.Count; i++)
        {
            hooks.BeforeRange?.Invoke(i);
            if (stop.IsCancellationRequested)
            {
                return new ReplayOutcome(fileCount, changed, unopened, requested, cached, false, true, Stopwatch.GetElapsedTime(started));
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
                AwaitRead(runs[oldest], held);
                inFlight -= runs[oldest].Length;
            }

            Advise(run, held);
            inFlight += run.Length;
            requested += run.Length;
        }

        // Everything was asked for: what is left in flight is the kernel's; waiting only makes the time honest.
        for (; oldest < runs.Count && !stop.IsCancellationRequested; oldest++)
        {
            AwaitRead(runs[oldest], held);
        }

        return new ReplayOutcome(fileCount, changed, unopened, requested, cached, budgetReached, false, Stopwatch.GetElapsedTime(started));
    }

    [UnsupportedOSPlatform("windows")]
    private static unsafe void AwaitRead(MissingRun run, HeldFiles held)
    {
        if (held.Get(run.File) is { } handle)
        {
            byte last;
            _ = Interop.PRead(handle, &last, 1, run.End - 1);
        }
    }

    [UnsupportedOSPlatform("windows")]
    private static void Advise(MissingRun run, HeldFiles held)
    {
        if (held.Get(run.File) is not { } handle)
        {
            return; // Changed or unopenable since it was looked at: nothing to warm.
        }

        long chunk = run.File.Device!.AdviceChunk;
        for (long at = run.Start; at < run.End; at += chunk)
        {
            long length = Math.Min(chunk, run.End - at);
            if (OperatingSystem.IsLinux())
            {
                ReadableFile.AdviseWillNeed(handle, at, length);
            }
            else
            {
                AdviseOSX(handle, at, length);
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

    /// <summary>A file being replayed: its record, its device, and its descriptor while <see cref="HeldFiles"/> holds one.</summary>
    private sealed class ReplayFile(StartupManifestFile manifest)
    {
        public StartupManifestFile Manifest { get; } = manifest;

        public FileVersion Version { get; set; }

        public DeviceSettings? Device { get; set; }

        public SafeFileHandle? Handle { get; set; }

        /// <summary>The file changed or could not be opened again: its runs are left out.</summary>
        public bool Dropped { get; set; }
    }

    /// <summary>
    /// The descriptors the replay holds: at most <c>limit</c>, the least recently used closed to make room, and fewer
    /// for good when an open meets the process's or the system's limit (EMFILE, ENFILE).
    /// </summary>
    [UnsupportedOSPlatform("windows")]
    private sealed class HeldFiles(int limit) : IDisposable
    {
        private readonly List<ReplayFile> _held = new(Math.Min(limit, MaxHeldFiles));
        private int _limit = limit;


        /// <summary>The file's descriptor, opened again if it was closed to make room; <see langword="null"/> once the file changed or cannot be opened.</summary>
        public SafeFileHandle? Get(ReplayFile file)
        {
            if (file.Handle is { } handle)
            {
                // Most recently used last: runs are asked for, then awaited, in file order.
                _held.Remove(file);
                _held.Add(file);
                return handle;
            }

            if (file.Dropped)
            {
                return null;
            }

            SafeFileHandle? opened = Open(file, out _);
            file.Dropped = opened is null;
            return opened;
        }

        public void Close(ReplayFile file)
        {
            if (file.Handle is { } handle)
            {
                handle.Dispose();
                file.Handle = null;
                _held.Remove(file);
            }
        }

        public void Dispose()
        {
            foreach (ReplayFile file in _held)
            {
                file.Handle!.Dispose();
                file.Handle = null;
            }

            _held.Clear();
        }

        /// <summary>
        /// Opens a file of the manifest, checking that it is the version recorded, closing the least recently used to make
        /// room; <see langword="null"/> and why when it is not opened.
        /// </summary>
        public SafeFileHandle? Open(ReplayFile file, out Opening opening)
        {
            while (true)
            {
                while (_held.Count > 0 && _held.Count >= _limit)
                {
                    Close(_held[0]);
                }

                if (_limit == 0)
                {
                    opening = Opening.Unopenable; // No descriptor to spare: the application's come first.
                    return null;
                }

                SafeFileHandle? handle = OpenUnchanged(file.Manifest, out FileVersion version, out opening);
                if (handle is not null)
                {
                    file.Version = version;
                    file.Handle = handle;
                    _held.Add(file);
                    DisableReadAhead(handle);
                    return handle;
                }

                if (opening != Opening.OutOfDescriptors)
                {
                    return null;
                }

                // The process is at its limit, the application's opens too: hold half as many from now on, and
                // none at all if nothing held is left to give back.
                _limit = _held.Count / 2;
            }
        }
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
