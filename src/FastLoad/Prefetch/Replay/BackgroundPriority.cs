namespace FastLoad.Prefetch;

/// <summary>
/// Lowers the priority of the calling thread, so that the application's own work comes first: its I/O priority (where
/// the device's scheduler knows priorities: Linux BFQ and mq-deadline, macOS, Windows) for the replay, and its CPU
/// priority for the recording. Best effort: a refusal leaves the priority as it was.
/// </summary>
internal static partial class BackgroundPriority
{
    public static void LowerIo()
    {
        if (OperatingSystem.IsLinux())
        {
            LowerIoLinux();
        }
        else if (OperatingSystem.IsMacOS())
        {
            LowerIoOSX();
        }
        else if (OperatingSystem.IsWindows())
        {
            LowerIoWindows();
        }
    }

    public static void LowerCpu()
    {
        if (OperatingSystem.IsLinux())
        {
            LowerCpuLinux();
        }
        else if (OperatingSystem.IsWindows())
        {
            Thread.CurrentThread.Priority = ThreadPriority.BelowNormal;
        }
    }
}
