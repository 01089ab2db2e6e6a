namespace FastLoad.Tests.Infrastructure;

/// <summary>A fact that runs on Linux only (FIFOs, devices, /proc, statx, page-cache eviction); skipped elsewhere with that reason.</summary>
public sealed class LinuxFactAttribute : FactAttribute
{
    public LinuxFactAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Needs Linux (FIFOs, character devices, /proc, posix_fadvise).";
        }
    }
}

/// <summary>A theory that runs on Linux only.</summary>
public sealed class LinuxTheoryAttribute : TheoryAttribute
{
    public LinuxTheoryAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Needs Linux (FIFOs, character devices, /proc, posix_fadvise).";
        }
    }
}
