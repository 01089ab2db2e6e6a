using FastLoad.FileSystem;

namespace FastLoad.Prefetch;

internal static partial class BackgroundPriority
{
    /// <summary>IOPOL_DEFAULT: the thread follows the process's policy again, as a new thread does.</summary>
    private const int DarwinIoPolicyDefault = 0;

    private static void RestoreIoOSX(int policy) =>
        _ = Interop.SetIoPolicyDarwin(Interop.DarwinIoPolicyTypeDisk, Interop.DarwinIoPolicyScopeThread, policy);

    private static IoScope LowerIoOSX() =>
        Interop.SetIoPolicyDarwin(Interop.DarwinIoPolicyTypeDisk, Interop.DarwinIoPolicyScopeThread, Interop.DarwinIoPolicyUtility) == 0
            ? new IoScope(DarwinIoPolicyDefault)
            : default;
}
