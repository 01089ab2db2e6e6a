using System.Numerics;
using System.Runtime.InteropServices;

namespace FastLoad.FileSystem;

/// <summary>
/// Native memory for the buffers of files when no pool is given. Files up to <see cref="SmallFileLimit"/> get blocks of
/// slabs (<see cref="SmallBlockPool"/>). Blocks up to <see cref="MaxPooledLength"/> are mappings of their own, in the
/// size classes of <see cref="SizeClasses"/>, kept for reuse up to <see cref="RetainedBytesLimit"/> in all until the
/// process has loaded nothing for a few seconds (<see cref="IdleTrimmer"/>), and on Linux resized to another class
/// where none of the wanted one waits; the rest is
/// freed at once, so the process gives memory back as soon as a file is disposed, instead of leaving it to a pool's
/// buckets (the shared array pool keeps dozens of arrays of every size per core) or to the GC.
/// Larger blocks come in size classes 1/16 apart and are kept only briefly (see <see cref="LargeBlockIdleTime"/>):
/// fresh memory costs a page fault per page, which makes a large read into a fresh block several times slower than
/// into a used one (docs/measurements/benchmarks.md), so a load that follows another (model shards, one after the other) reuses
/// its blocks.
/// Mapping a new large block first frees every idle one, so idle blocks never raise what the process holds above
/// what its loads held at once.
/// Blocks are aligned to 4 KiB, as unbuffered reads need (their sizes are multiples of it). On Linux they are
/// anonymous mappings rather than malloc memory: glibc keeps what many reading threads free in their own arenas, so the
/// process would not shrink.
/// </summary>
internal static unsafe class NativeBlockPool
{
    /// <summary>Files up to this size read into blocks of slabs (<see cref="SmallBlockPool"/>).</summary>
    internal const int SmallFileLimit = 128 * 1024;
    internal const int MaxPooledLength = 16 * 1024 * 1024;
    internal const long RetainedBytesLimit = 32L * 1024 * 1024;
    internal const int Alignment = 4096;
    internal const int HugePageSize = 2 * 1024 * 1024;

    /// <summary>A large block unused for this long (measured at the next trim, so up to twice this) goes back to the OS.</summary>
    internal static readonly TimeSpan LargeBlockIdleTime = TimeSpan.FromSeconds(1);

    private const int LargeSizeClassesPerDoubling = 16;
    private const int PageSize = 4096;

    // Whether the kernel knows MADV_POPULATE_WRITE; cleared the first time it does not.
    private static bool s_canPopulate = true;

    // The static state of each kind of block lives in a class of its own (Pooled, Large), set up when that kind is first
    // rented: a load of small files in a new process then sets up only the slabs.

    /// <summary>What a buffer for <paramref name="length"/> bytes really occupies: its size class.</summary>
    public static long Footprint(long length) => length switch
    {
        0 => 0,
        <= MaxPooledLength => SizeClasses.RoundUp(length),
        _ => LargeSizeClass(length),
    };

    /// <summary>
    /// <paramref name="length"/> rounded up to a multiple of 1/16 of its power of two (and of the huge page size):
    /// at most 6.25% more, and files of similar sizes share a class, so that their blocks can be reused.
    /// </summary>
    internal static long LargeSizeClass(long length)
    {
        long granularity = Math.Max(HugePageSize, (long)BitOperations.RoundUpToPowerOf2((ulong)length) / 2 / LargeSizeClassesPerDoubling);
        return (length + granularity - 1) / granularity * granularity;
    }

    /// <summary>A block with room for <paramref name="capacity"/> bytes; disposing the contents gives it back.</summary>
    /// <param name="capacity">The bytes needed.</param>
    /// <param name="forUnbufferedReads">
    /// Whether the kernel fills it with unbuffered reads (it then gets transparent huge pages, see
    /// <see cref="Allocate"/>).
    /// </param>
    public static NativeContents Rent(long capacity, bool forUnbufferedReads = false) => capacity switch
    {
        <= SmallFileLimit => SmallBlockPool.Rent(capacity),
        <= MaxPooledLength => Pooled.Rent(capacity, forUnbufferedReads),
        _ => Large.Rent(capacity, forUnbufferedReads),
    };

    /// <summary><paramref name="size"/> rounded up to a whole number of pages.</summary>
    internal static long RoundUpToPage(long size) => (size + PageSize - 1) & ~(long)(PageSize - 1);

    /// <summary>Frees every idle block up to <see cref="MaxPooledLength"/>, the slabs' included (see <see cref="IdleTrimmer"/>).</summary>
    internal static void FreeIdlePooledBlocks()
    {
        SmallBlockPool.FreeRetained();
        Pooled.FreeIdle();
    }

    /// <summary>
    /// Frees the large blocks idle for <see cref="LargeBlockIdleTime"/> at <paramref name="now"/>
    /// (<see cref="Environment.TickCount64"/>); stops the timer once none is left.
    /// </summary>
    internal static void TrimIdleLargeBlocks(long now) => Large.TrimIdle(now);

    /// <summary>The bytes of idle blocks up to <see cref="MaxPooledLength"/> kept for reuse.</summary>
    internal static long RetainedPooledBytes => Pooled.Retained;

    /// <summary>The bytes of idle large blocks kept for reuse.</summary>
    internal static long RetainedLargeBytes => Large.Retained;

    /// <summary>Blocks up to <see cref="MaxPooledLength"/> above the slabs' sizes: a mapping each, kept while idle ones hold at most <see cref="RetainedBytesLimit"/>.</summary>
    private static class Pooled
    {
        // The classes of blocks mapped one by one: from the first above SmallFileLimit to MaxPooledLength.
        private static readonly int FirstBucketClass = SizeClasses.Index(SmallFileLimit) + 1;
        private static readonly BlockStack[] Buckets = CreateBuckets();
        private static long s_retained;

        public static long Retained => Volatile.Read(ref s_retained);

        public static NativeContents Rent(long capacity, bool forUnbufferedReads)
        {
            IdleTrimmer.NoteUse();
            int index = SizeClasses.Index(capacity) - FirstBucketClass;
            BlockStack bucket = Buckets[index];
            byte* block = TakeIdleBlock(bucket);
            if (block is null && OperatingSystem.IsLinux())
            {
                block = ResizeIdleBlock(index, forUnbufferedReads);
            }

            if (block is null)
            {
                block = Allocate(bucket.BlockSize, forUnbufferedReads);
            }

            return NativeContents.Rent(bucket, block, capacity);
        }

        /// <summary>
        /// An idle block of another size made this one's (<c>mremap</c>), the nearest size first: files of many sizes (a
        /// folder of assemblies) would otherwise map a fresh block for most of them, whose pages the kernel zeroes and
        /// the block maps one by one, while idle blocks of other sizes wait. Shrunk, a block keeps its pages; grown, only
        /// the new part is fresh. <see langword="null"/> when no block waits or the kernel refuses.
        /// </summary>
        private static byte* ResizeIdleBlock(int index, bool forUnbufferedReads)
        {
            for (int distance = 1; distance < Buckets.Length && Volatile.Read(ref s_retained) > 0; distance++)
            {
                for (int side = 0; side < 2; side++)
                {
                    int other = side == 0 ? index + distance : index - distance;
                    byte* idle = (uint)other < (uint)Buckets.Length ? TakeIdleBlock(Buckets[other]) : null;
                    if (idle is null)
                    {
                        continue;
                    }

                    long from = Buckets[other].BlockSize, to = Buckets[index].BlockSize;
                    void* resized = Interop.Mremap(idle, (nuint)from, (nuint)to, Interop.MremapMayMove);
                    if (resized == (void*)-1)
                    {
                        Free(idle, from);
                        return null;
                    }

                    if (to > from)
                    {
                        PrepareFreshPages((byte*)resized, to, freshFrom: from, forUnbufferedReads, populate: true);
                    }

                    return (byte*)resized;
                }
            }

            return null;
        }

        public static void FreeIdle()
        {
            foreach (BlockStack bucket in Buckets)
            {
                for (byte* block = TakeIdleBlock(bucket); block is not null; block = TakeIdleBlock(bucket))
                {
                    Free(block, bucket.BlockSize);
                }
            }
        }

        /// <summary>Keeps the block for reuse while the idle blocks stay within the retained limit; frees it otherwise.</summary>
        public static void Return(BlockStack bucket, byte* block)
        {
            IdleTrimmer.NoteUse();
            if (Interlocked.Add(ref s_retained, bucket.BlockSize) > RetainedBytesLimit)
            {
                Interlocked.Add(ref s_retained, -bucket.BlockSize);
                Free(block, bucket.BlockSize);
                return;
            }

            bucket.Push(block);
        }

        private static byte* TakeIdleBlock(BlockStack bucket)
        {
            byte* block = bucket.TryPop();
            if (block is not null)
            {
                Interlocked.Add(ref s_retained, -bucket.BlockSize);
            }

            return block;
        }

        private static BlockStack[] CreateBuckets()
        {
            var buckets = new BlockStack[SizeClasses.Index(MaxPooledLength) - FirstBucketClass + 1];
            for (int bucket = 0; bucket < buckets.Length; bucket++)
            {
                buckets[bucket] = new BlockStack(SizeClasses.SizeOf(FirstBucketClass + bucket));
            }

            return buckets;
        }
    }

    /// <summary>Blocks over <see cref="MaxPooledLength"/>: in size classes 1/16 apart, kept briefly while idle.</summary>
    private static class Large
    {
        /// <summary>Idle large blocks kept at most: an eighth of the memory the runtime may use, at most 4 GiB.</summary>
        private static readonly long RetainedLimit = Math.Min(4L << 30, GC.GetGCMemoryInfo().TotalAvailableMemoryBytes / 8);

        private static readonly List<IdleBlock> IdleLargeBlocks = [];
        private static Timer? s_largeBlockTrimmer;
        private static long s_retainedLarge;

        public static long Retained
        {
            get
            {
                lock (IdleLargeBlocks)
                {
                    return s_retainedLarge;
                }
            }
        }

        public static NativeContents Rent(long capacity, bool forUnbufferedReads)
        {
            long sizeClass = LargeSizeClass(capacity);
            byte* large = TakeIdleLargeBlock(sizeClass);
            if (large is null)
            {
                // Idle blocks of other classes go first: then the idle and the used blocks together never hold more
                // than the used ones did when a block was last mapped, which the loads' budgets bound.
                Free(RemoveIdleLargeBlocks(static _ => true));
                large = Allocate(sizeClass, forUnbufferedReads);
            }

            return NativeContents.Block(large, capacity, () => ReturnLarge(large, sizeClass));
        }

        public static void TrimIdle(long now)
        {
            long cutoff = now - (long)LargeBlockIdleTime.TotalMilliseconds;
            Free(RemoveIdleLargeBlocks(block => block.ReturnedAt <= cutoff));
        }

        private static byte* TakeIdleLargeBlock(long size)
        {
            lock (IdleLargeBlocks)
            {
                int index = IdleLargeBlocks.FindLastIndex(block => block.Size == size);
                if (index < 0)
                {
                    return null;
                }

                IdleBlock taken = IdleLargeBlocks[index];
                IdleLargeBlocks.RemoveAt(index);
                s_retainedLarge -= size;
                return (byte*)taken.Address;
            }
        }

        private static void ReturnLarge(byte* block, long size)
        {
            lock (IdleLargeBlocks)
            {
                if (s_retainedLarge + size <= RetainedLimit)
                {
                    IdleLargeBlocks.Add(new IdleBlock((IntPtr)block, size, Environment.TickCount64));
                    s_retainedLarge += size;

                    // The timer roots nothing but this static class and does not keep the process alive.
                    s_largeBlockTrimmer ??= new Timer(static _ => TrimIdle(Environment.TickCount64), null, LargeBlockIdleTime, LargeBlockIdleTime);
                    return;
                }
            }

            NativeBlockPool.Free(block, size);
        }

        private static List<IdleBlock> RemoveIdleLargeBlocks(Predicate<IdleBlock> match)
        {
            lock (IdleLargeBlocks)
            {
                List<IdleBlock> removed = IdleLargeBlocks.FindAll(match);
                IdleLargeBlocks.RemoveAll(match);
                foreach (IdleBlock block in removed)
                {
                    s_retainedLarge -= block.Size;
                }

                if (IdleLargeBlocks.Count == 0 && s_largeBlockTrimmer is not null)
                {
                    s_largeBlockTrimmer.Dispose();
                    s_largeBlockTrimmer = null;
                }

                return removed;
            }
        }

        private static void Free(List<IdleBlock> blocks)
        {
            foreach (IdleBlock block in blocks)
            {
                NativeBlockPool.Free((byte*)block.Address, block.Size);
            }
        }

        // A class, as are the pool's other collections' elements: the framework's code shared by every reference type is
        // precompiled, while a collection of a struct of ours is JIT-compiled when a process first reads a large file.
        private sealed record IdleBlock(IntPtr Address, long Size, long ReturnedAt);
    }

    /// <summary>
    /// Page-aligned memory of <paramref name="size"/> bytes that goes back to the OS when freed. Transparent huge pages
    /// only for unbuffered reads: with them the kernel pins far fewer pages for O_DIRECT, while a buffered copy out of
    /// the page cache pays to compact and zero each huge page it faults in (docs/measurements/benchmarks.md).
    /// Other blocks up to <see cref="MaxPooledLength"/> are populated (<see cref="Populate"/>) unless
    /// <paramref name="populate"/> is <see langword="false"/> (slabs populate the blocks they hand out); larger ones are
    /// left to fault as the reads fill them, so that a large file's first read does not wait for its whole buffer.
    /// </summary>
    internal static byte* Allocate(long size, bool hugePages, bool populate = true)
    {
        if (!OperatingSystem.IsLinux())
        {
            return (byte*)NativeMemory.AlignedAlloc((nuint)Math.Max(size, 1), Alignment);
        }

        void* block = Interop.Mmap(null, (nuint)Math.Max(size, 1), Interop.ProtRead | Interop.ProtWrite, Interop.MapPrivate | Interop.MapAnonymous, -1, 0);
        if (block == (void*)-1)
        {
            throw new OutOfMemoryException(
                $"Could not map {size:N0} bytes for a file buffer: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}.");
        }

        PrepareFreshPages((byte*)block, size, freshFrom: 0, hugePages, populate);
        return (byte*)block;
    }

    /// <summary>Sets up the fresh pages of a block, from <paramref name="freshFrom"/> to its end, as <see cref="Allocate"/> describes.</summary>
    private static void PrepareFreshPages(byte* block, long size, long freshFrom, bool hugePages, bool populate)
    {
        if (hugePages && size >= HugePageSize)
        {
            Interop.Madvise(block, (nuint)size, Interop.MadviseHugePage); // Advice only.
        }
        else if (populate && size <= MaxPooledLength)
        {
            Populate(block + freshFrom, size - freshFrom);
        }
    }

    /// <summary>
    /// Maps the pages of <c>[start, start + length)</c> (page-aligned) in one call, on Linux 5.14 or later: a page faulted
    /// in one at a time costs an exception each (about 12 us in a virtual machine, more than copying the page), while
    /// <c>MADV_POPULATE_WRITE</c> maps a whole block in a fraction of that.
    /// </summary>
    internal static void Populate(byte* start, long length)
    {
        if (OperatingSystem.IsLinux() && s_canPopulate)
        {
            // Before Linux 5.14 the advice is unknown (EINVAL): the pages then fault in as the reads fill them.
            s_canPopulate = Interop.Madvise(start, (nuint)length, Interop.MadvisePopulateWrite) == 0 || Marshal.GetLastPInvokeError() != Interop.EINVAL;
        }
    }

    internal static void Free(byte* block, long size)
    {
        if (!OperatingSystem.IsLinux())
        {
            NativeMemory.AlignedFree(block);
            return;
        }

        Interop.Munmap(block, (nuint)Math.Max(size, 1));
    }

    /// <summary>The idle blocks of one size, the most recently returned on top.</summary>
    private sealed class BlockStack(int blockSize) : NativeContents.Owner
    {
        // The retained limit bounds how many blocks of a size can wait, so the array never grows.
        private readonly IntPtr[] _blocks = new IntPtr[RetainedBytesLimit / blockSize];
        private int _count;

        public int BlockSize { get; } = blockSize;

        /// <summary>The block on top, or null when none waits.</summary>
        public byte* TryPop()
        {
            lock (_blocks)
            {
                return _count > 0 ? (byte*)_blocks[--_count] : null;
            }
        }

        public override void Return(byte* block) => Pooled.Return(this, block);

        public void Push(byte* block)
        {
            lock (_blocks)
            {
                _blocks[_count++] = (IntPtr)block;
            }
        }
    }
}
