using FastLoad.FileSystem;

namespace FastLoad.Prefetch;

internal static partial class BackgroundPriority
{
    /// <summary>THREAD_MODE_BACKGROUND_END: the thread's I/O and memory priorities as they were before the begin.</summary>
    private const int ThreadModeBackgroundEnd = 0x00020000;

    private static void RestoreIoWindows(int mode) => _ = Interop.SetThreadPriority(Interop.GetCurrentThread(), mode);

    private static IoScope LowerIoWindows() =>
        Interop.SetThreadPriority(Interop.GetCurrentThread(), Interop.ThreadModeBackgroundBegin)
            ? new IoScope(ThreadModeBackgroundEnd)
            : default;
}
