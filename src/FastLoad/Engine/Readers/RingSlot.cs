using System.Buffers;
using System.Text;
using FastLoad.FileSystem;

namespace FastLoad.Engine;

/// <summary>Where a file of a ring is: the ring reads at most as many files at once as it has slots.</summary>
internal enum RingSlotState
{
    Free,
    Opening,
    WaitingForBudget,
    Reading,
}

/// <summary>What a ring's request is, kept in the low byte of its user data (the slot's number above it).</summary>
internal enum RingOperation : ulong
{
    Open = 1,
    Read = 2,
    Close = 3,
}

/// <summary>One file a ring reads: its open, its read and its close are requests that name this slot.</summary>
internal sealed class RingSlot(int number)
{
    public readonly int Number = number;
    public int Index = -1;
    public int Fd = -1;
    public long Length;
    public long Charge;
    public long Started;
    public bool Counted;
    public RingSlotState State;
    public FileContents? Contents;
    public MemoryHandle Pin;

    /// <summary>The user data of this slot's <paramref name="operation"/>, which its completion gives back.</summary>
    public ulong UserData(RingOperation operation) => ((ulong)Number << 8) | (ulong)operation;

    /// <summary>Unpins and returns the buffer, if the slot holds one.</summary>
    public void ReleaseContents()
    {
        Pin.Dispose();
        Pin = default;
        Contents?.Dispose();
        Contents = null;
    }

    /// <summary>Closes the descriptor, if the slot holds one, on this thread.</summary>
    public void CloseDescriptor()
    {
        if (Fd >= 0)
        {
            Interop.Close(Fd);
            Fd = -1;
        }
    }
}

/// <summary>
/// A ring's slots, the free ones among them, and the room where each slot's path is written for the kernel. Not
/// thread-safe: the thread that drives the ring uses them.
/// </summary>
internal sealed unsafe class RingSlots : IDisposable
{
    // Room for a path and its NUL in each slot; a longer path (rare: PATH_MAX is 4096) is opened the ordinary way.
    private const int PathCapacity = 1024;

    private readonly RingSlot[] _slots;
    private readonly int[] _free;
    private readonly NativeContents _paths;
    private int _freeCount;

    public RingSlots(int count)
    {
        _slots = new RingSlot[count];
        _free = new int[count];
        for (int slot = count - 1; slot >= 0; slot--)
        {
            _slots[slot] = new RingSlot(slot);
            _free[_freeCount++] = slot;
        }

        // Native memory that stays put until the reader is disposed, after its last open completed. From the pool, not
        // fresh: the room spans a page for every four slots, and a page written for the first time costs a fault, which
        // every load would otherwise pay again.
        _paths = NativeBlockPool.Rent(count * PathCapacity);
    }

    /// <summary>Every slot, free or not.</summary>
    public ReadOnlySpan<RingSlot> All => _slots;

    /// <summary>Slots holding a file: opening, waiting for the budget, or reading.</summary>
    public int InUse => _slots.Length - _freeCount;

    /// <summary>The slot a completion's user data names.</summary>
    public RingSlot For(ulong userData) => _slots[(int)(userData >> 8)];

    /// <summary>A free slot; there must be one (<see cref="InUse"/> below the count).</summary>
    public RingSlot Rent() => _slots[_free[--_freeCount]];

    /// <summary>Frees a slot whose file is done: published, failed, or handed to another reader.</summary>
    public void Return(RingSlot slot)
    {
        slot.State = RingSlotState.Free;
        slot.Fd = -1;
        slot.Index = -1;
        _free[_freeCount++] = slot.Number;
    }

    /// <summary>
    /// The slot's room holding <paramref name="path"/> from <paramref name="start"/> on as UTF-8 with its NUL;
    /// <see langword="null"/> when it does not fit or holds a NUL of its own.
    /// </summary>
    /// <remarks>
    /// The span over the string is made from its characters: the string's own conversion to a span names
    /// <c>MemoryExtensions</c>, whose framework assembly a new process would load for it on the first load's path.
    /// </remarks>
    public byte* PathOf(RingSlot slot, string path, int start)
    {
        if (path.Contains('\0', StringComparison.Ordinal))
        {
            return null;
        }

        byte* destination = _paths.Pointer + ((long)slot.Number * PathCapacity);
        int written;
        fixed (char* chars = path)
        {
            if (!Encoding.UTF8.TryGetBytes(new ReadOnlySpan<char>(chars + start, path.Length - start), new Span<byte>(destination, PathCapacity - 1), out written))
            {
                return null;
            }
        }

        destination[written] = 0;
        return destination;
    }

    public void Dispose() => _paths.Dispose();
}
