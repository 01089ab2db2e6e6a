using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

internal static partial class UnbufferedReader
{
    /// <summary>
    /// F_NOCACHE on the checked descriptor. macOS needs no alignment for it, but page-aligned buffers and requests let
    /// the kernel move the data without a copy through its own buffers.
    /// </summary>
    [SupportedOSPlatform("macos")]
    private static int TryEnableMacOS(SafeFileHandle handle, string path, ReadSettings settings)
    {
        if (Interop.FcntlDarwin((int)handle.DangerousGetHandle(), Interop.DarwinNoCache, 1) == -1)
        {
            settings.ReportFallback(path, Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError()));
            return 0;
        }

        return FallbackAlignment;
    }
}
