using System.Collections.Concurrent;
using System.Numerics;
using System.Runtime.InteropServices;
using FastLoad.Reading;

namespace FastLoad.Internal;

/// <summary>
/// Native memory for the buffers of files over <see cref="SmallFileLimit"/> when no pool is given. Blocks up to
/// <see cref="MaxPooledLength"/> come in powers of two and are kept for reuse up to <see cref="RetainedBytesLimit"/> in
/// all; the rest is freed at once, so the process gives memory back as soon as a file is disposed, instead of
/// leaving it to a pool's buckets (the shared array pool keeps dozens of arrays of every size per core) or to the GC.
/// Blocks are aligned to 4 KiB, as unbuffered reads need. On Linux they are anonymous mappings rather than malloc
/// memory: glibc keeps what 100+ reading threads free in their own arenas, so the process would not shrink.
/// </summary>
internal static unsafe class NativeBlockPool
{
    /// <summary>Files up to this size read into arrays from <see cref="System.Buffers.ArrayPool{T}.Shared"/>.</summary>
    internal const int SmallFileLimit = 128 * 1024;
    internal const int MaxPooledLength = 16 * 1024 * 1024;
    internal const long RetainedBytesLimit = 32L * 1024 * 1024;
    internal const int Alignment = 4096;
    internal const int HugePageSize = 2 * 1024 * 1024;

    private const int FirstBucketShift = 18; // 256 KiB: the first power of two above SmallFileLimit.

    private static readonly ConcurrentStack<IntPtr>[] Buckets =
        Enumerable.Range(0, BitOperations.Log2(MaxPooledLength) - FirstBucketShift + 1).Select(_ => new ConcurrentStack<IntPtr>()).ToArray();

    private static long s_retained;

    /// <summary>What a buffer for <paramref name="length"/> bytes really occupies (arrays and pooled blocks round up to a power of two).</summary>
    public static long Footprint(long length) => length switch
    {
        0 => 0,
        <= MaxPooledLength => (long)BitOperations.RoundUpToPowerOf2((ulong)Math.Max(length, 16)),
        _ => length,
    };

    /// <summary>A block with room for <paramref name="capacity"/> bytes; disposing the contents gives it back.</summary>
    public static NativeContents Rent(long capacity)
    {
        if (capacity > MaxPooledLength)
        {
            byte* large = Allocate(capacity);
            return NativeContents.Wrap(large, capacity, () => Free(large, capacity));
        }

        int size = (int)Math.Max(BitOperations.RoundUpToPowerOf2((ulong)capacity), 1UL << FirstBucketShift);
        ConcurrentStack<IntPtr> bucket = Buckets[BitOperations.Log2((uint)size) - FirstBucketShift];
        byte* block;
        if (bucket.TryPop(out IntPtr reused))
        {
            Interlocked.Add(ref s_retained, -size);
            block = (byte*)reused;
        }
        else
        {
            block = Allocate(size);
        }

        return NativeContents.Wrap(block, capacity, () => Return(bucket, block, size));
    }

    private static void Return(ConcurrentStack<IntPtr> bucket, byte* block, int size)
    {
        if (Interlocked.Add(ref s_retained, size) > RetainedBytesLimit)
        {
            Interlocked.Add(ref s_retained, -size);
            Free(block, size);
            return;
        }

        bucket.Push((IntPtr)block);
    }

    /// <summary>Page-aligned memory of <paramref name="size"/> bytes that goes back to the OS when freed.</summary>
    internal static byte* Allocate(long size)
    {
        if (!OperatingSystem.IsLinux())
        {
            return (byte*)NativeMemory.AlignedAlloc((nuint)Math.Max(size, 1), Alignment);
        }

        void* block = Interop.Mmap(null, (nuint)Math.Max(size, 1), Interop.ProtRead | Interop.ProtWrite, Interop.MapPrivate | Interop.MapAnonymous, -1, 0);
        if (block == (void*)-1)
        {
            throw new OutOfMemoryException($"Could not map {size:N0} bytes for a file buffer: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}.");
        }

        if (size >= HugePageSize)
        {
            // Transparent huge pages: a 1 GiB buffer then costs 512 page faults instead of 262,144. Advice only.
            Interop.Madvise(block, (nuint)size, Interop.MadviseHugePage);
        }

        return (byte*)block;
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
}
