using System.Buffers;
using System.Collections.Concurrent;
using System.Runtime.CompilerServices;

namespace FastLoad.Tests.Infrastructure;

/// <summary>
/// A buffer pool that tracks every array it hands out: outstanding arrays, requested bytes outstanding and their
/// peak, and a return of an array that is not outstanding (a double return) as an error.
/// </summary>
public sealed class CountingPool : ArrayPool<byte>
{
    private readonly ConcurrentDictionary<byte[], int> _outstanding = new(ReferenceEqualityComparer.Instance);
    private readonly object _gate = new();
    private long _requestedOutstanding;
    private long _peakRequestedOutstanding;
    private int _rentCount;
    private int _badReturns;

    /// <summary>Called on every rent, with the requested length, before the array is returned to the caller.</summary>
    public Action<int>? OnRent { get; set; }

    public int Outstanding => _outstanding.Count;

    public int RentCount => Volatile.Read(ref _rentCount);

    public int BadReturns => Volatile.Read(ref _badReturns);

    public long PeakRequestedOutstanding
    {
        get { lock (_gate) return _peakRequestedOutstanding; }
    }

    public override byte[] Rent(int minimumLength)
    {
        OnRent?.Invoke(minimumLength);
        byte[] array = new byte[Math.Max(minimumLength, 1)];
        _outstanding[array] = minimumLength;
        Interlocked.Increment(ref _rentCount);
        lock (_gate)
        {
            _requestedOutstanding += minimumLength;
            _peakRequestedOutstanding = Math.Max(_peakRequestedOutstanding, _requestedOutstanding);
        }

        return array;
    }

    public override void Return(byte[] array, bool clearArray = false)
    {
        if (!_outstanding.TryRemove(array, out int requested))
        {
            Interlocked.Increment(ref _badReturns);
            return;
        }

        lock (_gate)
        {
            _requestedOutstanding -= requested;
        }
    }

    /// <summary>Asserts that every array came back exactly once.</summary>
    public void AssertAllReturned()
    {
        Assert.Equal(0, BadReturns);
        Assert.Equal(0, Outstanding);
    }

    /// <summary>Asserts that every array came back exactly once, naming <paramref name="context"/> (a soak round, say) if not.</summary>
    public void AssertAllReturned(string context) =>
        Assert.True(Outstanding == 0 && BadReturns == 0, $"{context}: {Outstanding} buffers not returned, {BadReturns} bad returns");
}

internal sealed class ReferenceEqualityComparer : IEqualityComparer<byte[]>
{
    public static ReferenceEqualityComparer Instance { get; } = new();

    public bool Equals(byte[]? x, byte[]? y) => ReferenceEquals(x, y);

    public int GetHashCode(byte[] obj) => RuntimeHelpers.GetHashCode(obj);
}
