using System.Buffers;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Packing;

/// <summary>
/// The decoded blocks that random reads of a pack share: at most <see cref="Capacity"/> blocks at once, each in a
/// buffer rented from the pack's pool. A block being decoded takes a slot too, so decoded bytes never exceed
/// <see cref="Capacity"/> blocks whatever the number of readers; a reader that finds every slot in use waits for one.
/// </summary>
/// <remarks>
/// Readers lease one block at a time and release it before they lease the next, so readers cannot wait for each
/// other in a cycle. Two readers of one block share its decode: the second waits for the first.
/// </remarks>
internal sealed class PackBlockCache
{
    private readonly SafeFileHandle _handle;
    private readonly string _packPath;
    private readonly PackBlock[] _blocks;
    private readonly ArrayPool<byte> _pool;
    private readonly Slot[] _slots;
    private long _clock;
    private bool _disposed;

    public PackBlockCache(SafeFileHandle handle, string packPath, PackBlock[] blocks, ArrayPool<byte> pool, int capacity)
    {
        _handle = handle;
        _packPath = packPath;
        _blocks = blocks;
        _pool = pool;
        _slots = new Slot[capacity];
        for (int i = 0; i < _slots.Length; i++)
        {
            _slots[i] = new Slot();
        }
    }

    public int Capacity => _slots.Length;

    /// <summary>Returns block <paramref name="block"/> decoded, leased until the lease is disposed; decodes it if no slot holds it.</summary>
    /// <exception cref="ObjectDisposedException">The pack was disposed.</exception>
    /// <exception cref="InvalidDataException">The block does not decode.</exception>
    /// <exception cref="IOException">The block could not be read.</exception>
    public Lease Acquire(int block)
    {
        Slot slot;
        lock (_slots)
        {
            while (true)
            {
                ObjectDisposedException.ThrowIf(_disposed, typeof(PackReader));
                Slot? found = Find(block);
                if (found is not null)
                {
                    found.References++;
                    found.LastUse = ++_clock;
                    while (found.Data is null && found.Error is null)
                    {
                        Monitor.Wait(_slots);
                    }

                    if (found.Error is null)
                    {
                        return new Lease(this, found);
                    }

                    // Its decode failed: this reader tries for itself, and so reports the failure as its own.
                    Release(found);
                    continue;
                }

                if (TakeFreeSlot() is { } free)
                {
                    slot = free;
                    slot.Block = block;
                    slot.References = 1;
                    slot.LastUse = ++_clock;
                    break;
                }

                Monitor.Wait(_slots);
            }
        }

        // Decoded outside the lock, so that readers of other blocks go on meanwhile.
        byte[]? data = null;
        try
        {
            data = PackBlockReader.ReadAndDecode(_handle, _packPath, _blocks[block], block, _pool);
        }
        catch (Exception ex)
        {
            lock (_slots)
            {
                slot.Error = ex;
                Monitor.PulseAll(_slots);
                Release(slot);
            }

            throw;
        }

        lock (_slots)
        {
            slot.Data = data;
            Monitor.PulseAll(_slots);
        }

        return new Lease(this, slot);
    }

    /// <summary>Returns every block nobody holds to the pool; those still leased go back when their lease ends.</summary>
    public void Dispose()
    {
        lock (_slots)
        {
            _disposed = true;
            foreach (Slot slot in _slots)
            {
                if (slot.References == 0)
                {
                    Clear(slot);
                }
            }

            Monitor.PulseAll(_slots);
        }
    }

    private Slot? Find(int block)
    {
        foreach (Slot slot in _slots)
        {
            if (slot.Block == block && slot.Error is null)
            {
                return slot;
            }
        }

        return null;
    }

    /// <summary>An empty slot, or else the least recently used one that nobody holds, emptied; null when all are held.</summary>
    private Slot? TakeFreeSlot()
    {
        Slot? oldest = null;
        foreach (Slot slot in _slots)
        {
            if (slot.References > 0)
            {
                continue;
            }

            if (slot.Block < 0)
            {
                return slot;
            }

            if (oldest is null || slot.LastUse < oldest.LastUse)
            {
                oldest = slot;
            }
        }

        if (oldest is not null)
        {
            Clear(oldest);
        }

        return oldest;
    }

    private void Release(Slot slot)
    {
        if (--slot.References == 0)
        {
            if (_disposed || slot.Error is not null)
            {
                Clear(slot);
            }

            Monitor.PulseAll(_slots);
        }
    }

    private void Clear(Slot slot)
    {
        if (slot.Data is { } data)
        {
            _pool.Return(data);
        }

        slot.Data = null;
        slot.Error = null;
        slot.Block = -1;
    }

    /// <summary>One decoded block, or one being decoded (no data and no error yet).</summary>
    internal sealed class Slot
    {
        public int Block = -1;
        public byte[]? Data;
        public Exception? Error;
        public int References;
        public long LastUse;
    }

    /// <summary>A block held decoded until disposed (once: a copy of the lease is the same lease).</summary>
    public struct Lease : IDisposable
    {
        private PackBlockCache? _cache;
        private readonly Slot _slot;

        internal Lease(PackBlockCache cache, Slot slot)
        {
            _cache = cache;
            _slot = slot;
            Data = slot.Data!;
        }

        /// <summary>The block's raw bytes; the buffer may be longer than the block.</summary>
        public byte[] Data { get; }

        public void Dispose()
        {
            if (_cache is { } cache)
            {
                _cache = null;
                lock (cache._slots)
                {
                    cache.Release(_slot);
                }
            }
        }
    }
}
