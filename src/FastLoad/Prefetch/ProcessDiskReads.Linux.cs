using System.Runtime.InteropServices;
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
        int result;
        try
        {
            result = MaybeGlibc()
                ? Interop.GetResourceUsageGlibc(Interop.ResourceUsageSelf, &usage)
                : Interop.GetResourceUsage(Interop.ResourceUsageSelf, &usage);
        }
        catch (DllNotFoundException)
        {
            // A C library that is neither glibc nor named as musl: the runtime's search for "libc" finds it.
            result = Interop.GetResourceUsage(Interop.ResourceUsageSelf, &usage);
        }

        return result == 0 ? usage.BlockInputs * BlockSize : null;
    }

    /// <summary>
    /// Whether the runtime's own identifier leaves glibc possible: musl's builds are <c>linux-musl-*</c>, or Alpine's own.
    /// Read as the host gave it, and compared by prefix only: <see cref="RuntimeInformation.RuntimeIdentifier"/> and an
    /// ordinal search of a string each cost milliseconds the first time in a process.
    /// </summary>
    private static bool MaybeGlibc() =>
        AppContext.GetData("RUNTIME_IDENTIFIER") is not string runtime
        || (!runtime.StartsWith("linux-musl", StringComparison.Ordinal) && !runtime.StartsWith("alpine", StringComparison.Ordinal));
}
