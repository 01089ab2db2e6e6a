using FastLoad.FileSystem;

namespace FastLoad.Prefetch;

internal static partial class IoPriority
{
    private static void LowerWindows() => _ = Interop.SetThreadPriority(Interop.GetCurrentThread(), Interop.ThreadModeBackgroundBegin);
}
