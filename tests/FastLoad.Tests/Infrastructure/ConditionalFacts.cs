using System.Runtime.CompilerServices;
using FastLoad.FileSystem;

namespace FastLoad.Tests.Infrastructure;

/// <summary>A fact that runs on Linux only (FIFOs, devices, /proc, statx, page-cache eviction); skipped elsewhere with that reason.</summary>
public sealed class LinuxFactAttribute : FactAttribute
{
    public LinuxFactAttribute(
        [CallerFilePath] string? sourceFilePath = null, [CallerLineNumber] int sourceLineNumber = -1)
        : base(sourceFilePath, sourceLineNumber)
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
    public LinuxTheoryAttribute(
        [CallerFilePath] string? sourceFilePath = null, [CallerLineNumber] int sourceLineNumber = -1)
        : base(sourceFilePath, sourceLineNumber)
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Needs Linux (FIFOs, character devices, /proc, posix_fadvise).";
        }
    }
}

/// <summary>
/// A fact that runs a child process as an unprivileged user (uid/gid 65534 through setpriv): root reads any file
/// whatever its mode, so "unreadable" can only be tested without root's privileges. Skipped, with the reason, off
/// Linux, when not running as root (no right to switch user) or when setpriv is missing.
/// </summary>
public sealed class UnprivilegedChildFactAttribute : FactAttribute
{
    public const string SetprivPath = "/usr/bin/setpriv";

    public UnprivilegedChildFactAttribute(
        [CallerFilePath] string? sourceFilePath = null, [CallerLineNumber] int sourceLineNumber = -1)
        : base(sourceFilePath, sourceLineNumber)
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Needs Linux (setpriv drops root's privileges in a child process).";
        }
        else if (!Loads.IsRoot)
        {
            Skip = "Needs root to start a child as another user; as a normal user, chmod 000 already denies reading.";
        }
        else if (!File.Exists(SetprivPath))
        {
            Skip = $"Needs {SetprivPath} (util-linux) to drop root's privileges in a child process.";
        }
        else if (!ReachableByOthers(AppContext.BaseDirectory))
        {
            Skip = $"The test output folder {AppContext.BaseDirectory} is not readable by other users (a checkout under /root?), so the unprivileged child cannot run the tool.";
        }
    }

    [System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
    private static bool ReachableByOthers(string directory)
    {
        const UnixFileMode Needed = UnixFileMode.OtherRead | UnixFileMode.OtherExecute;
        for (var current = new DirectoryInfo(directory); current is not null; current = current.Parent)
        {
            if ((File.GetUnixFileMode(current.FullName) & UnixFileMode.OtherExecute) == 0)
            {
                return false;
            }
        }

        return (File.GetUnixFileMode(directory) & Needed) == Needed;
    }
}

/// <summary>Whether the temporary folder's file system tells names apart by case alone (Linux file systems do; Windows and macOS by default do not).</summary>
internal static class FileSystemCase
{
    public static bool IgnoresCase { get; } = Probe();

    private static bool Probe()
    {
        string probe = Path.Combine(Path.GetTempPath(), $"fastload-case-{Guid.NewGuid():N}");
        File.WriteAllBytes(probe, []);
        try
        {
            return File.Exists(Path.Combine(Path.GetDirectoryName(probe)!, Path.GetFileName(probe).ToUpperInvariant()));
        }
        finally
        {
            File.Delete(probe);
        }
    }
}

/// <summary>A fact for a file system that ignores case; skipped elsewhere with that reason.</summary>
public sealed class CaseInsensitiveFileSystemFactAttribute : FactAttribute
{
    public CaseInsensitiveFileSystemFactAttribute(
        [CallerFilePath] string? sourceFilePath = null, [CallerLineNumber] int sourceLineNumber = -1)
        : base(sourceFilePath, sourceLineNumber)
    {
        if (!FileSystemCase.IgnoresCase)
        {
            Skip = "Needs a temporary folder on a file system that ignores case (Windows, macOS by default); this one tells names apart by case, and ext4/tmpfs casefold needs a kernel with CONFIG_UNICODE.";
        }
    }
}

/// <summary>A fact for a file system that tells names apart by case; skipped elsewhere with that reason.</summary>
public sealed class CaseSensitiveFileSystemFactAttribute : FactAttribute
{
    public CaseSensitiveFileSystemFactAttribute(
        [CallerFilePath] string? sourceFilePath = null, [CallerLineNumber] int sourceLineNumber = -1)
        : base(sourceFilePath, sourceLineNumber)
    {
        if (FileSystemCase.IgnoresCase)
        {
            Skip = "Needs a temporary folder on a file system that tells names apart by case (Linux).";
        }
    }
}

/// <summary>Whether this kernel lets the process make an io_uring ring, and why not.</summary>
internal static class IoUringAvailability
{
    public static string? Refusal { get; } = Probe();

    private static string? Probe()
    {
        if (!OperatingSystem.IsLinux())
        {
            return "io_uring is Linux's.";
        }

        using IoUring? ring = IoUring.TryCreate(8, out string? refusal);
        return ring is null ? $"The kernel offers no io_uring here: {refusal}." : null;
    }
}

/// <summary>A fact that needs the kernel's io_uring; skipped, with the kernel's reason, where it is refused.</summary>
public sealed class IoUringFactAttribute : FactAttribute
{
    public IoUringFactAttribute(
        [CallerFilePath] string? sourceFilePath = null, [CallerLineNumber] int sourceLineNumber = -1)
        : base(sourceFilePath, sourceLineNumber)
    {
        Skip = IoUringAvailability.Refusal;
    }
}

/// <summary>A theory that needs the kernel's io_uring.</summary>
public sealed class IoUringTheoryAttribute : TheoryAttribute
{
    public IoUringTheoryAttribute(
        [CallerFilePath] string? sourceFilePath = null, [CallerLineNumber] int sourceLineNumber = -1)
        : base(sourceFilePath, sourceLineNumber)
    {
        Skip = IoUringAvailability.Refusal;
    }
}
