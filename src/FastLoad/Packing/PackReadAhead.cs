using Microsoft.Win32.SafeHandles;

namespace FastLoad.Packing;

/// <summary>
/// Asks the kernel to read a whole-pack load's next stored bytes into the page cache while the block threads decode,
/// where the system can (Linux: <c>posix_fadvise(WILLNEED)</c>, in pieces of 128 KiB). The device then has the reads in flight without a
/// thread waiting on each, so the load needs only one thread per core; elsewhere it keeps a thread per read in flight.
/// </summary>
internal sealed partial class PackReadAhead
{
    /// <summary>How far ahead of the block being started the kernel is asked to read: many large requests for a cold device, little page cache.</summary>
    internal const long Distance = 32L * 1024 * 1024;

    /// <summary>
    /// One advice reads at most the device's largest request and quietly leaves the rest, so the range goes in pieces no
    /// disk refuses: holes left unread are read later by the block threads, out of order, which costs seeks on a hard disk.
    /// </summary>
    internal const long Chunk = 128 * 1024;

    private readonly Action<long, long> _advise;
    private readonly long _end;
    private long _advised;

    /// <param name="handle">The pack file.</param>
    /// <param name="start">Where its data starts.</param>
    /// <param name="end">Where its data ends: nothing past it is advised.</param>
    public PackReadAhead(SafeFileHandle handle, long start, long end)
        : this(start, end, (offset, length) => AdviseLinux(handle, offset, length))
    {
    }

    /// <summary>For tests: <paramref name="advise"/> receives each range (offset, length) instead of the kernel.</summary>
    internal PackReadAhead(long start, long end, Action<long, long> advise)
    {
        _advise = advise;
        _advised = start;
        _end = end;
    }

    /// <summary>Whether the kernel reads ahead on request here: only then does a load make a <see cref="PackReadAhead"/>.</summary>
    public static bool IsSupported => OperatingSystem.IsLinux();

    /// <summary>Asks for the bytes up to <see cref="Distance"/> past <paramref name="position"/> that were not asked for yet.</summary>
    public void Advance(long position)
    {
        long target = Math.Min(_end, position + Distance);
        while (_advised < target)
        {
            long length = Math.Min(Chunk, target - _advised);
            _advise(_advised, length);
            _advised += length;
        }
    }
}
