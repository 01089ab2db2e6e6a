using FastLoad.FileSystem;

namespace FastLoad.Prefetch;

internal static partial class BackgroundPriority
{
    /// <summary>
    /// The lowest level of the best-effort class, not the idle class: BFQ serves an idle-class queue only after the
    /// disk has been idle for a while, which during a start it never is, and the replay would come too late to help.
    /// </summary>
    private const int LowestBestEffortLevel = 7;

    /// <summary>Nice 10: the recording runs on the cores the application leaves idle, and a busy application delays it by little.</summary>
    private const int RecordingNice = 10;

    private static IoScope LowerIoLinux()
    {
        int before = Interop.IoPriorityGet(Interop.IoPriorityWhoProcess, 0);
        if (before < 0 || Interop.IoPrioritySet(
            Interop.IoPriorityWhoProcess, 0, (Interop.IoPriorityClassBestEffort << Interop.IoPriorityClassShift) | LowestBestEffortLevel) != 0)
        {
            return default;
        }

        return new IoScope(before);
    }

    private static void RestoreIoLinux(int priority) => _ = Interop.IoPrioritySet(Interop.IoPriorityWhoProcess, 0, priority);

    private static void LowerCpuLinux() => _ = Interop.SetPriority(Interop.PriorityProcess, 0, RecordingNice);
}
