using FastLoad.FileSystem;

namespace FastLoad.Prefetch;

internal static partial class BackgroundPriority
{
    private static void LowerIoWindows() => _ = Interop.SetThreadPriority(Interop.GetCurrentThread(), Interop.ThreadModeBackgroundBegin);
}
