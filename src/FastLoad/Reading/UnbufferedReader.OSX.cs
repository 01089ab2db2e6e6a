using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using FastLoad.Internal;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Reading;

internal static partial class UnbufferedReader
{
    /// <summary>
    /// F_NOCACHE on the checked descriptor. macOS needs no alignment for it, but page-aligned buffers and requests let
    /// the kernel move the data without a copy through its own buffers. Switched back off where a read fails.
    /// </summary>
    [SupportedOSPlatform("macos")]
    private static FileContents? TryReadMacOS(SafeFileHandle handle, string path, long length, ReadSettings settings, CancellationToken cancellationToken)
    {
        int fd = (int)handle.DangerousGetHandle();
        if (Interop.FcntlDarwin(fd, Interop.DarwinNoCache, 1) == -1)
        {
            settings.ReportFallback(path, Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError()));
            return null;
        }

        try
        {
            return ReadAligned(handle, path, length, FallbackAlignment, settings, cancellationToken);
        }
        catch (IOException ex)
        {
            // A real I/O error fails the buffered read too, which then reports it.
            Interop.FcntlDarwin(fd, Interop.DarwinNoCache, 0);
            settings.ReportFallback(path, ex.Message);
            return null;
        }
    }

    /// <summary>F_NOCACHE on the checked descriptor for chunk streaming; 4 KiB-aligned buffers and requests.</summary>
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
