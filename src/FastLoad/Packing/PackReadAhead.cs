using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Packing;

/// <summary>
/// Asks the kernel to read a whole-pack load's next stored bytes into the page cache while the block threads decode,
/// where the system can (Linux: <c>posix_fadvise(WILLNEED)</c>, in pieces of 128 KiB). The device then has the reads in flight without a
/// thread waiting on each, so the load needs only one thread per core; elsewhere it keeps a thread per read in flight.
/// The advice runs on a thread of its own: on a cold device each piece waits for room in the device's queue, so advising
/// the first <see cref="Distance"/> takes about as long as reading it, and the load must not wait for that to start
/// its blocks.
/// </summary>
internal sealed class PackReadAhead : IDisposable
{
    /// <summary>How far ahead of the block being started the kernel is asked to read: many large requests for a cold device, little page cache.</summary>
    internal const long Distance = 32L * 1024 * 1024;

    /// <summary>
    /// One advice reads at most the device's largest request and quietly leaves the rest, so the range goes in pieces no
    /// disk refuses: holes left unread are read later by the block threads, out of order, which costs seeks on a hard disk.
    /// </summary>
    internal const long Chunk = 128 * 1024;

    private readonly Action<long, long> _advise;
    private readonly bool _adviseOnCaller;
    private readonly long _end;
    private readonly object _gate = new();

    // Guarded by _gate; _advised is written only by the thread advising.
    private long _advised;
    private long _target;
    private bool _advising;
    private bool _stopped;

    /// <param name="handle">The pack file; kept open by the caller until <see cref="Dispose"/> returns.</param>
    /// <param name="start">Where its data starts.</param>
    /// <param name="end">Where its data ends: nothing past it is advised.</param>
    public PackReadAhead(SafeFileHandle handle, long start, long end)
        : this(start, end, (offset, length) => ReadableFile.AdviseWillNeed(handle, offset, length), adviseOnCaller: false)
    {
    }

    /// <summary>For tests: <paramref name="advise"/> receives each range (offset, length) instead of the kernel.</summary>
    internal PackReadAhead(long start, long end, Action<long, long> advise, bool adviseOnCaller = true)
    {
        _advise = advise;
        _adviseOnCaller = adviseOnCaller;
        _advised = start;
        _target = start;
        _end = end;
    }

    /// <summary>Whether the kernel reads ahead on request here: only then does a load make a <see cref="PackReadAhead"/>.</summary>
    public static bool IsSupported => OperatingSystem.IsLinux();

    /// <summary>
    /// Asks for the bytes up to <see cref="Distance"/> past <paramref name="position"/> that were not asked for yet, on
    /// the advising thread (started here when none is advising).
    /// </summary>
    public void Advance(long position)
    {
        long target = Math.Min(_end, position + Distance);
        lock (_gate)
        {
            if (_stopped || target <= _target)
            {
                return;
            }

            _target = target;
            if (_advising)
            {
                return;
            }

            _advising = true;
        }

        if (_adviseOnCaller)
        {
            AdviseUntilCaughtUp();
            return;
        }

        try
        {
            ReaderThreadPool.Shared.Run(static state => ((PackReadAhead)state!).AdviseUntilCaughtUp(), this);
        }
        catch (OutOfMemoryException)
        {
            // No thread to be had (a pids limit): the block threads read what they need themselves.
            lock (_gate)
            {
                _advising = false;
                Monitor.PulseAll(_gate);
            }
        }
    }

    /// <summary>Stops advising and waits for the piece being advised: the caller may close the pack's file then.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            _stopped = true;
            while (_advising)
            {
                Monitor.Wait(_gate);
            }
        }
    }

    private void AdviseUntilCaughtUp()
    {
        while (true)
        {
            long from, length;
            lock (_gate)
            {
                if (_stopped || _advised >= _target)
                {
                    _advising = false;
                    Monitor.PulseAll(_gate);
                    return;
                }

                from = _advised;
                length = Math.Min(Chunk, _target - from);
            }

            try
            {
                _advise(from, length);
            }
            catch (ObjectDisposedException)
            {
                // The pack was closed under a load that was not disposed first: nothing left to advise.
                lock (_gate)
                {
                    _stopped = true;
                }
            }

            lock (_gate)
            {
                _advised = from + length;
            }
        }
    }
}
