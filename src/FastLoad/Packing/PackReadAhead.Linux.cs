using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Packing;

internal sealed partial class PackReadAhead
{
    // Advice is a hint: a failure only leaves the reads to the block threads.
    private static void AdviseLinux(SafeFileHandle handle, long offset, long length) =>
        _ = Interop.PosixFadvise((int)handle.DangerousGetHandle(), offset, length, Interop.FadviseWillNeed);
}
