using FastLoad.FileSystem;

namespace FastLoad.Prefetch;

internal static partial class ProcessDiskReads
{
    private const int BlockSize = 512;

    /// <summary>
    /// <c>ru_inblock</c>, from the kernel's per-task I/O accounting: the reads and page faults that went to the device.
    /// Only the 64-bit layout of <c>struct rusage</c> is described here.
    /// </summary>
    private static unsafe long? BytesSoFarLinux()
    {
        if (!Environment.Is64BitProcess)
        {
            return null;
        }

        Interop.ResourceUsage usage;
        return Interop.GetResourceUsage(Interop.ResourceUsageSelf, &usage) == 0 ? usage.BlockInputs * BlockSize : null;
    }
}
