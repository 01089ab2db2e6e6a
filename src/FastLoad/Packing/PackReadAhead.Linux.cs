using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Packing;

internal sealed partial class PackReadAhead
{
    // Advice is a hint: a failure only leaves the reads to the block threads. The reference keeps the descriptor from
    // being closed, and its number reused, during the call (a closed handle throws ObjectDisposedException).
    private static void AdviseLinux(SafeFileHandle handle, long offset, long length)
    {
        bool added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            _ = Interop.PosixFadvise((int)handle.DangerousGetHandle(), offset, length, Interop.FadviseWillNeed);
        }
        finally
        {
            if (added)
            {
                handle.DangerousRelease();
            }
        }
    }
}
