namespace FastLoad.FileSystem;

/// <summary>
/// Native memory for the buffers of small files (up to <see cref="NativeBlockPool.SmallFileLimit"/>): blocks of a few
/// size classes carved from slabs, handed out most recently returned first. A consumer that disposes each file before
/// taking the next gives the reader back memory it has already touched: a new page costs a fault and a zeroed page
/// (several microseconds in a virtual machine), more than copying a small file from the page cache.
/// A slab whose blocks are all back is kept for the next load while the kept slabs hold at most
/// <see cref="RetainedBytesLimit"/>, until the process has loaded nothing for a few seconds (<see cref="IdleTrimmer"/>);
/// past that limit it is unmapped at once.
/// </summary>
internal static unsafe class SmallBlockPool
{
    /// <summary>Fully free slabs kept at most, over every size class.</summary>
    internal const long RetainedBytesLimit = 16L * 1024 * 1024;

    // A slab holds at least this many blocks and bytes, so that mapping one is rare next to renting from it.
    private const int MinBlocksPerSlab = 8;
    private const int MinSlabSize = 64 * 1024;

    // A slab's pages are populated as its blocks are first handed out, at least this much at a time: a load of a few
    // files populates about what it uses, not every slab whole, in few system calls.
    private const int PopulateAhead = 64 * 1024;

    private static readonly SizeClass[] Classes = CreateClasses();

    private static long s_retained;

    /// <summary>The bytes of slabs whose blocks are all back, kept for reuse.</summary>
    internal static long RetainedBytes => Volatile.Read(ref s_retained);

    /// <summary>A block for <paramref name="length"/> bytes (at most <see cref="NativeBlockPool.SmallFileLimit"/>); disposing the contents returns it.</summary>
    public static NativeContents Rent(long length)
    {
        IdleTrimmer.NoteUse();
        return Classes[SizeClasses.Index(length)].Rent(length);
    }

    /// <summary>Unmaps every slab whose blocks are all back (tests start from an empty pool).</summary>
    internal static void FreeRetained()
    {
        foreach (SizeClass sizeClass in Classes)
        {
            sizeClass.FreeRetained();
        }
    }

    private static SizeClass[] CreateClasses()
    {
        var classes = new SizeClass[SizeClasses.Index(NativeBlockPool.SmallFileLimit) + 1];
        for (int index = 0; index < classes.Length; index++)
        {
            classes[index] = new SizeClass(SizeClasses.SizeOf(index));
        }

        return classes;
    }

    /// <summary>The slabs of one block size; the one a block came back to last is rented from first.</summary>
    private sealed class SizeClass(int blockSize)
    {
        // Slabs with a free block, the most recently returned to last; guarded by _gate. An array, not a List<Slab>: a
        // generic type over a class of ours is built at run time, on the first load's path.
        private readonly object _gate = new();
        private Slab[] _available = new Slab[4];
        private int _availableCount;
        private readonly int _slabSize = (int)NativeBlockPool.RoundUpToPage(Math.Max(MinSlabSize, (long)blockSize * MinBlocksPerSlab));

        public NativeContents Rent(long length)
        {
            Slab slab;
            int block;
            long populateFrom = 0, populateTo = 0;
            lock (_gate)
            {
                if (_availableCount == 0)
                {
                    // Counted as retained while all its blocks are free, as a slab whose blocks came back is.
                    AddAvailable(new Slab(this, NativeBlockPool.Allocate(_slabSize, hugePages: false, populate: false), blockSize, _slabSize / blockSize));
                    Interlocked.Add(ref s_retained, _slabSize);
                }

                slab = _available[_availableCount - 1];
                if (slab.IsFree)
                {
                    Interlocked.Add(ref s_retained, -_slabSize);
                }

                block = slab.Take();

                // A new slab hands its blocks out in order, so the pages below a high-water mark are the ones in use.
                long end = (long)(block + 1) * blockSize;
                if (end > slab.Populated)
                {
                    populateFrom = slab.Populated;
                    populateTo = Math.Min(_slabSize, NativeBlockPool.RoundUpToPage(Math.Max(end, slab.Populated + PopulateAhead)));
                    slab.Populated = populateTo;
                }

                if (slab.FreeCount == 0)
                {
                    _available[--_availableCount] = null!;
                }
            }

            if (populateTo > populateFrom)
            {
                // Outside the lock: a system call other renters need not wait for. Populating maps pages without writing
                // them, so a block another thread is already filling keeps its bytes.
                NativeBlockPool.Populate(slab.Base + populateFrom, populateTo - populateFrom);
            }

            return NativeContents.Rent(slab, slab.Base + ((long)block * blockSize), length);
        }

        public void Return(Slab slab, byte* block)
        {
            IdleTrimmer.NoteUse();
            bool unmap = false;
            lock (_gate)
            {
                if (slab.FreeCount == 0)
                {
                    AddAvailable(slab);
                }

                slab.Put((int)((block - slab.Base) / blockSize));
                if (slab.IsFree)
                {
                    if (Interlocked.Add(ref s_retained, _slabSize) > RetainedBytesLimit)
                    {
                        Interlocked.Add(ref s_retained, -_slabSize);
                        RemoveAvailable(slab);
                        unmap = true;
                    }
                }
            }

            if (unmap)
            {
                NativeBlockPool.Free(slab.Base, _slabSize);
            }
        }

        public void FreeRetained()
        {
            Slab[] free;
            lock (_gate)
            {
                free = Array.FindAll(_available[.._availableCount], static slab => slab.IsFree);
                foreach (Slab slab in free)
                {
                    RemoveAvailable(slab);
                }

                Interlocked.Add(ref s_retained, -(long)free.Length * _slabSize);
            }

            foreach (Slab slab in free)
            {
                NativeBlockPool.Free(slab.Base, _slabSize);
            }
        }

        private void AddAvailable(Slab slab)
        {
            if (_availableCount == _available.Length)
            {
                Array.Resize(ref _available, _available.Length * 2);
            }

            _available[_availableCount++] = slab;
        }

        private void RemoveAvailable(Slab slab)
        {
            // A loop rather than Array.IndexOf, whose first call builds an equality comparer by reflection.
            int index = 0;
            while (!ReferenceEquals(_available[index], slab))
            {
                index++;
            }

            Array.Copy(_available, index + 1, _available, index, _availableCount - index - 1);
            _available[--_availableCount] = null!;
        }
    }

    /// <summary>One mapping cut into blocks of one size; its free blocks are a stack, the last returned on top.</summary>
    private sealed class Slab(SizeClass sizeClass, byte* start, int blockSize, int capacity) : NativeContents.Owner
    {
        private readonly int[] _free = CreateFreeStack(capacity);

        public byte* Base { get; } = start;

        public int FreeCount { get; private set; } = capacity;

        /// <summary>The bytes from the start that are populated (a multiple of the page size); guarded by the size class.</summary>
        public long Populated { get; set; }

        public bool IsFree => FreeCount == _free.Length;

        public int Take() => _free[--FreeCount];

        public void Put(int block) => _free[FreeCount++] = block;

        public override void Return(byte* block) => sizeClass.Return(this, block);

        public override string ToString() => $"slab of {_free.Length} x {blockSize} bytes, {FreeCount} free";

        // Block 0 on top: a new slab is used from its start, so that its pages are touched in order.
        private static int[] CreateFreeStack(int capacity)
        {
            int[] free = new int[capacity];
            for (int i = 0; i < capacity; i++)
            {
                free[i] = capacity - 1 - i;
            }

            return free;
        }
    }
}

/// <summary>
/// The buffer sizes of the pooled blocks: from 512 bytes, four classes per doubling (a power of two and 1.25, 1.5 and
/// 1.75 times it), so that a buffer is at most a quarter larger than its file and files of similar sizes share blocks.
/// </summary>
internal static class SizeClasses
{
    internal const int MinSize = 512;
    private const int MinShift = 9;

    /// <summary>The class of a buffer for <paramref name="length"/> bytes (at most 2 GiB).</summary>
    public static int Index(long length)
    {
        if (length <= MinSize)
        {
            return 0;
        }

        long last = length - 1;
        int shift = System.Numerics.BitOperations.Log2((ulong)last);
        int quarter = (int)(last >> (shift - 2)) & 3;
        return ((shift - MinShift) * 4) + quarter + 1;
    }

    /// <summary>The size of the buffers of class <paramref name="index"/>.</summary>
    public static int SizeOf(int index)
    {
        if (index == 0)
        {
            return MinSize;
        }

        int shift = MinShift + ((index - 1) / 4);
        int quarter = (index - 1) % 4;
        return (1 << shift) + ((quarter + 1) << (shift - 2));
    }

    /// <summary><paramref name="length"/> rounded up to its class.</summary>
    public static long RoundUp(long length) => SizeOf(Index(length));
}
