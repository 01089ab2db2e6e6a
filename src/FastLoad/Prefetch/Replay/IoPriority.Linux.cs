using FastLoad.FileSystem;

namespace FastLoad.Prefetch;

internal static partial class IoPriority
{
    /// <summary>
    /// The lowest level of the best-effort class, not the idle class: BFQ serves an idle-class queue only after the
    /// disk has been idle for a while, which during a start it never is, and the replay would come too late to help.
    /// </summary>
    private const int LowestBestEffortLevel = 7;

    private static void LowerLinux() => _ = Interop.IoPrioritySet(
        Interop.IoPriorityWhoProcess, 0, (Interop.IoPriorityClassBestEffort << Interop.IoPriorityClassShift) | LowestBestEffortLevel);
}
