using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Prefetch;

internal sealed partial class ManifestReplay
{
    /// <summary>The bytes of one <c>F_RDADVISE</c>: its count is an <see cref="int"/>, and smaller pieces keep the queue moving.</summary>
    private const long OSXAdviceChunk = 1024 * 1024;

    private static unsafe void AdviseOSX(SafeFileHandle handle, long offset, long length)
    {
        var advisory = new Interop.DarwinReadAdvisory { Offset = offset, Count = (int)length };
        _ = Interop.FcntlDarwin((int)handle.DangerousGetHandle(), Interop.DarwinReadAdvise, &advisory);
    }

    private static void DisableReadAheadOSX(SafeFileHandle handle) =>
        _ = Interop.FcntlDarwin((int)handle.DangerousGetHandle(), Interop.DarwinReadAhead, 0);
}
