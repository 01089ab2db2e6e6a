using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using FastLoad.FileSystem;

namespace FastLoad.Tests.Infrastructure;

/// <summary>Where the suite runs, for the attributes below and for tests whose expectations differ by platform.</summary>
public static class TestPlatform
{
    /// <summary>
    /// Whether this "Windows" is Wine (its ntdll exports <c>wine_get_version</c>): the Windows code paths run, but over a
    /// Unix file system, without Windows' storage drivers, and at Wine's speed for threads and processes.
    /// </summary>
    public static bool IsWine { get; } =
        OperatingSystem.IsWindows() && NativeLibrary.TryLoad("ntdll.dll", out nint ntdll) && NativeLibrary.TryGetExport(ntdll, "wine_get_version", out _);

    internal static string? UnlessLinux(string? needs) =>
        OperatingSystem.IsLinux() ? null : $"Needs Linux ({needs ?? "FIFOs, character devices, /proc, posix_fadvise"}).";

    internal static string? UnlessWindows(string? needs) =>
        OperatingSystem.IsWindows() ? null : $"Needs Windows ({needs ?? "Win32 volumes, handles and control codes"}).";

    internal static string? UnlessUnix(string? needs) =>
        !OperatingSystem.IsWindows() ? null : $"Needs Linux or macOS ({needs ?? "Unix file names and modes"}).";

    internal static string? UnlessNotWine(string why) => IsWine ? $"Not under Wine: {why}" : null;
}

/// <summary>A fact that runs on Linux only; skipped elsewhere, saying what it needs of Linux.</summary>
public sealed class LinuxFactAttribute : FactAttribute
{
    public LinuxFactAttribute(
        string? needs = null, [CallerFilePath] string? sourceFilePath = null, [CallerLineNumber] int sourceLineNumber = -1)
        : base(sourceFilePath, sourceLineNumber) => Skip = TestPlatform.UnlessLinux(needs);
}

/// <summary>A theory that runs on Linux only; skipped elsewhere, saying what it needs of Linux.</summary>
public sealed class LinuxTheoryAttribute : TheoryAttribute
{
    public LinuxTheoryAttribute(
        string? needs = null, [CallerFilePath] string? sourceFilePath = null, [CallerLineNumber] int sourceLineNumber = -1)
        : base(sourceFilePath, sourceLineNumber) => Skip = TestPlatform.UnlessLinux(needs);
}

/// <summary>A fact for a Windows-only code path (under Wine too); skipped elsewhere, saying what it needs of Windows.</summary>
public sealed class WindowsFactAttribute : FactAttribute
{
    public WindowsFactAttribute(
        string? needs = null, [CallerFilePath] string? sourceFilePath = null, [CallerLineNumber] int sourceLineNumber = -1)
        : base(sourceFilePath, sourceLineNumber) => Skip = TestPlatform.UnlessWindows(needs);
}

/// <summary>A theory for a Windows-only code path (under Wine too); skipped elsewhere, saying what it needs of Windows.</summary>
public sealed class WindowsTheoryAttribute : TheoryAttribute
{
    public WindowsTheoryAttribute(
        string? needs = null, [CallerFilePath] string? sourceFilePath = null, [CallerLineNumber] int sourceLineNumber = -1)
        : base(sourceFilePath, sourceLineNumber) => Skip = TestPlatform.UnlessWindows(needs);
}

/// <summary>A fact that needs what Linux and macOS share (names Windows forbids, Unix modes); skipped on Windows with the reason.</summary>
public sealed class UnixFactAttribute : FactAttribute
{
    public UnixFactAttribute(
        string? needs = null, [CallerFilePath] string? sourceFilePath = null, [CallerLineNumber] int sourceLineNumber = -1)
        : base(sourceFilePath, sourceLineNumber) => Skip = TestPlatform.UnlessUnix(needs);
}

/// <summary>A fact that holds on every OS but cannot run under Wine; skipped there, saying why (it runs on Linux and on Windows).</summary>
public sealed class NotUnderWineFactAttribute : FactAttribute
{
    public NotUnderWineFactAttribute(
        string why, [CallerFilePath] string? sourceFilePath = null, [CallerLineNumber] int sourceLineNumber = -1)
        : base(sourceFilePath, sourceLineNumber) => Skip = TestPlatform.UnlessNotWine(why);
}

/// <summary>A theory that holds on every OS but cannot run under Wine; skipped there, saying why.</summary>
public sealed class NotUnderWineTheoryAttribute : TheoryAttribute
{
    public NotUnderWineTheoryAttribute(
        string why, [CallerFilePath] string? sourceFilePath = null, [CallerLineNumber] int sourceLineNumber = -1)
        : base(sourceFilePath, sourceLineNumber) => Skip = TestPlatform.UnlessNotWine(why);
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

/// <summary>
/// A fact for where the kernel refuses io_uring, as a container's seccomp profile does (.ci/run runs the loader's
/// tests under tools/no-io-uring for that). It also runs where FASTLOAD_TESTS_IO_URING_REFUSED=1 says the kernel must
/// refuse it, so that a wrapper that stopped refusing fails the run rather than skips these.
/// </summary>
public sealed class IoUringRefusedFactAttribute : FactAttribute
{
    public const string Variable = "FASTLOAD_TESTS_IO_URING_REFUSED";

    public IoUringRefusedFactAttribute(
        [CallerFilePath] string? sourceFilePath = null, [CallerLineNumber] int sourceLineNumber = -1)
        : base(sourceFilePath, sourceLineNumber)
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = TestPlatform.UnlessLinux("io_uring");
        }
        else if (IoUringAvailability.Refusal is null && Environment.GetEnvironmentVariable(Variable) != "1")
        {
            Skip = $"The kernel offers io_uring here; .ci/run runs this under tools/no-io-uring, which refuses it ({Variable}=1).";
        }
    }
}
