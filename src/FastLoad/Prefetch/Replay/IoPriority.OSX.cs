using FastLoad.FileSystem;

namespace FastLoad.Prefetch;

internal static partial class IoPriority
{
    private static void LowerOSX() =>
        _ = Interop.SetIoPolicyDarwin(Interop.DarwinIoPolicyTypeDisk, Interop.DarwinIoPolicyScopeThread, Interop.DarwinIoPolicyUtility);
}
