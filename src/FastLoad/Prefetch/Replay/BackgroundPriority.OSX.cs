using FastLoad.FileSystem;

namespace FastLoad.Prefetch;

internal static partial class BackgroundPriority
{
    private static void LowerIoOSX() =>
        _ = Interop.SetIoPolicyDarwin(Interop.DarwinIoPolicyTypeDisk, Interop.DarwinIoPolicyScopeThread, Interop.DarwinIoPolicyUtility);
}
