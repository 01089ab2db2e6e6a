using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

internal static partial class PhysicalLayout
{
    /// <summary>The logical cluster number of the first extent (FSCTL_GET_RETRIEVAL_POINTERS from VCN 0), or <see cref="Unknown"/>.</summary>
    [SupportedOSPlatform("windows")]
    private static unsafe ulong FirstExtentWindows(SafeFileHandle handle)
    {
        long startingVcn = 0;
        Interop.RetrievalPointersBuffer pointers = default;
        uint returned = 0;
        if (!Interop.DeviceIoControl(
                handle,
                Interop.FsctlGetRetrievalPointers,
                &startingVcn,
                sizeof(long),
                &pointers,
                (uint)sizeof(Interop.RetrievalPointersBuffer),
                &returned,
                null)
            && Marshal.GetLastPInvokeError() != Interop.ErrorMoreData)
        {
            // ERROR_HANDLE_EOF: an empty file, or one small enough to live in its MFT record; others: not NTFS/FAT/ReFS-like.
            return Unknown;
        }

        // ERROR_MORE_DATA still fills the first extent, the only one needed. An LCN of -1 is a sparse or compressed hole.
        return pointers.ExtentCount > 0 && pointers.FirstExtentLcn >= 0 ? (ulong)pointers.FirstExtentLcn : Unknown;
    }
}
