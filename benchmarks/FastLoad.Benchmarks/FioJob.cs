namespace FastLoad.Benchmarks;

/// <summary>
/// One fio measurement: io_uring, O_DIRECT, over a folder (--opendir) or one file. fio reads whole blocks only, so a
/// set is compared in device I/Os: <see cref="IoCount"/> blocks of <see cref="BlockSize"/> (a file smaller than a block
/// still costs one), divided by the IOPS fio reaches, is the time the device needs for the same work.
/// </summary>
internal sealed record FioJob(string Target, string ReadWrite, int BlockSize, int IoDepth, long IoCount)
{
    public const int DefaultIoDepth = 32;

    /// <summary>A job over a set of files with a block size matched to them: the median file size, as a power of two from 4 KiB to 1 MiB.</summary>
    public static FioJob ForFiles(string target, IReadOnlyList<long> sizes, int ioDepth = DefaultIoDepth)
    {
        long[] sorted = [.. sizes.Order()];
        long median = sorted.Length == 0 ? 4096 : sorted[sorted.Length / 2];
        int blockSize = (int)Math.Clamp(System.Numerics.BitOperations.RoundUpToPowerOf2((ulong)Math.Max(1, median)), 4096UL, 1UL << 20);
        return ForFiles(target, sizes, blockSize, ioDepth);
    }

    public static FioJob ForFiles(string target, IReadOnlyList<long> sizes, int blockSize, int ioDepth) =>
        new(target, "read", blockSize, ioDepth, sizes.Sum(size => Math.Max(1, (size + blockSize - 1) / blockSize)));
}
