using System.Diagnostics;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Prefetch;

/// <summary>
/// Reads the ranges of a manifest into the page cache, within a byte budget, until done or stopped; nothing read is
/// handed to anyone. On Linux and macOS the kernel reads them (<c>posix_fadvise(WILLNEED)</c>, <c>F_RDADVISE</c>) after
/// <c>mincore</c> has left out what is cached; elsewhere they are read into a scratch buffer. A file that changed
/// since the manifest was recorded (length or last write time) is skipped.
/// </summary>
/// <param name="manifest">The manifest whose ranges are read.</param>
/// <param name="budget">The most bytes asked of the disk.</param>
/// <param name="hooks">A test's faults, or <see cref="PrefetchTestHooks.None"/>.</param>
/// <param name="stop">Stops the replay where it is.</param>
/// <param name="sweep">Whether a spinning disk is read in one sweep (the start waits for it) rather than a shallow window at a time.</param>
internal sealed partial class ManifestReplay(StartupManifest manifest, long budget, PrefetchTestHooks hooks, CancellationToken stop, bool sweep = false)
{
    /// <summary>The scratch buffer of the reading replay: large enough that each read is one request of a useful size.</summary>
    private const int ReadChunk = 1024 * 1024;

    public ReplayOutcome Run()
    {
        if (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS())
        {
            return RunAdvising();
        }

        return RunReading();
    }

    /// <summary>
    /// The manifest's files in the order the recorded start first used them (<see cref="StartupManifestFile.FirstUse"/>),
    /// then those whose place is not known, in manifest order. The manifest itself is kept in path order, so that a
    /// start recorded twice gives the same bytes; in path order a shared framework such as <c>Microsoft.AspNetCore.App</c>
    /// comes before <c>Microsoft.NETCore.App</c>, and the start's first reads would wait behind it.
    /// </summary>
    private static StartupManifestFile[] InFirstUseOrder(StartupManifestFile[] files)
    {
        // Places are apart and at most the file count (the format checks it); placed without a sort, so that nothing
        // here asks the JIT for a comparer at the top of Main.
        var byPlace = new StartupManifestFile?[files.Length + 1];
        var ordered = new StartupManifestFile[files.Length];
        foreach (StartupManifestFile file in files)
        {
            int place = file.FirstUse;
            if (place > 0 && place < byPlace.Length && byPlace[place] is null)
            {
                byPlace[place] = file;
            }
        }

        int count = 0;
        foreach (StartupManifestFile? file in byPlace)
        {
            if (file is not null)
            {
                ordered[count++] = file;
            }
        }

        foreach (StartupManifestFile file in files)
        {
            int place = file.FirstUse;
            if (place <= 0 || place >= byPlace.Length || byPlace[place] != file)
            {
                ordered[count++] = file;
            }
        }

        return ordered;
    }

    /// <summary>Why a file of the manifest was not opened, or that it was.</summary>
    private enum Opening
    {
        Opened,

        /// <summary>Changed since the manifest was recorded (length, last write time, kind), or gone.</summary>
        Changed,

        /// <summary>There but not opened: no permission, an I/O error, or no descriptor to spare.</summary>
        Unopenable,

        /// <summary>The process or the system is out of descriptors (EMFILE, ENFILE): worth trying again with fewer held.</summary>
        OutOfDescriptors,
    }

    /// <summary>
    /// The file opened if it is still the version the manifest recorded; otherwise <see langword="null"/>, and why. Only
    /// a regular file is opened: anything else in its place counts as changed.
    /// </summary>
    private static SafeFileHandle? OpenUnchanged(StartupManifestFile file, out FileVersion version, out Opening opening)
    {
        SafeFileHandle? handle = null;
        version = default;
        try
        {
            // Looked at before it is opened: a manifest may name a device or a FIFO (crafted, or a path reused since),
            // and opening one can block, rewind a tape or wake a driver. What was opened is checked again after.
            if (FileVersion.Get(file.Path).Kind != FileKind.Regular)
            {
                opening = Opening.Changed;
                return null;
            }

            if (OperatingSystem.IsLinux())
            {
                handle = OpenLinux(file.Path, out version, out opening);
                if (handle is null)
                {
                    return null;
                }
            }
            else
            {
                handle = ReadableFile.Open(file.Path, out _);
                version = FileVersion.Get(handle, file.Path);
            }

            if (version.Kind == FileKind.Regular && version.Length == file.Length && version.LastWriteUnixNanoseconds == file.LastWriteUnixNanoseconds)
            {
                opening = Opening.Opened;
                return handle;
            }

            opening = Opening.Changed;
        }
        catch (Exception ex) when (ex is FileNotFoundException or DirectoryNotFoundException)
        {
            opening = Opening.Changed; // Gone.
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // No permission, an I/O error: the file's own reader will meet it.
            opening = Opening.Unopenable;
        }

        handle?.Dispose();
        return null;
    }

    /// <summary>Where nothing tells what is cached (Windows without the operation recorder, other systems): each range is read, in order.</summary>
    private ReplayOutcome RunReading()
    {
        long started = Stopwatch.GetTimestamp();
        byte[] scratch = new byte[ReadChunk];
        int files = 0, changed = 0, unopened = 0;
        long requested = 0;
        bool budgetReached = false, stopped = false;
        int rangeNumber = 0;
        foreach (StartupManifestFile file in InFirstUseOrder(manifest.FileArray))
        {
            using SafeFileHandle? handle = OpenUnchanged(file, out _, out Opening opening);
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

            files++;
            foreach (StartupManifestRange range in file.RangeArray)
            {
                hooks.BeforeRange?.Invoke(rangeNumber++);
                for (long offset = range.Offset; offset < range.End; offset += ReadChunk)
                {
                    if (stop.IsCancellationRequested || (budgetReached = requested >= budget))
                    {
                        stopped = !budgetReached;
                        return new ReplayOutcome(files, changed, unopened, requested, 0, budgetReached, stopped, Stopwatch.GetElapsedTime(started));
                    }

                    int count = (int)Math.Min(Math.Min(ReadChunk, range.End - offset), budget - requested);
                    try
                    {
                        _ = RandomAccess.Read(handle, scratch.AsSpan(0, count), offset);
                    }
                    catch (IOException)
                    {
                        // The file's own reader will meet the problem; the replay only warms the cache.
                    }

                    requested += count;
                }
            }
        }

        return new ReplayOutcome(files, changed, unopened, requested, 0, budgetReached, stopped, Stopwatch.GetElapsedTime(started));
    }
}
