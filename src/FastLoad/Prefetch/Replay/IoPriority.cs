namespace FastLoad.Prefetch;

/// <summary>
/// Lowers the I/O priority of the calling thread, so that the device serves the application's own reads before the
/// replay's where its scheduler knows priorities (Linux BFQ and mq-deadline, macOS, Windows). Best effort: a refusal
/// leaves the priority as it was.
/// </summary>
internal static partial class IoPriority
{
    public static void LowerForCurrentThread()
    {
        if (OperatingSystem.IsLinux())
        {
            LowerLinux();
        }
        else if (OperatingSystem.IsMacOS())
        {
            LowerOSX();
        }
        else if (OperatingSystem.IsWindows())
        {
            LowerWindows();
        }
    }
}
