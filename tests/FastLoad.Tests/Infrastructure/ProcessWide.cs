using System.Globalization;
using FastLoad.FileSystem;

namespace FastLoad.Tests.Infrastructure;

/// <summary>
/// Tests that count what the whole process holds (descriptors, threads, resident memory, unobserved task
/// exceptions) run alone: xunit runs this collection after the others, one test at a time.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ProcessWide
{
    public const string Name = "Process-wide measurements";

    /// <summary>
    /// Open file descriptors of this process (the listing's own descriptor included, a constant), except those of
    /// assemblies: the runtime opens an assembly whenever it first needs one (a method recompiled at a higher tier
    /// in the middle of a test, say), and keeps it open for good. That is not a leak of ours. Nor are the io_uring rings
    /// FastLoad keeps open between loads (<see cref="IoUring.IdleCount"/>, bounded by <c>IdleRingTests</c>): a ring that
    /// is neither kept nor closed is counted.
    /// </summary>
    public static int OpenDescriptors() =>
        Directory.GetFileSystemEntries("/proc/self/fd").Count(descriptor => !IsAssembly(descriptor)) - IoUring.IdleCount;

    /// <summary>Open io_uring descriptors of this process.</summary>
    public static int IoUringDescriptors() =>
        Directory.GetFileSystemEntries("/proc/self/fd").Count(descriptor => LinkTarget(descriptor) == "anon_inode:[io_uring]");

    /// <summary>
    /// <see cref="OpenDescriptors"/> once the finalizers of handles that earlier tests left undisposed have run: a
    /// baseline that counted them would see them close in the middle of the test.
    /// Only for baselines: after a load, a collection would hide a handle of ours that was never disposed.
    /// </summary>
    public static int OpenDescriptorsBaseline()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        return OpenDescriptors();
    }

    private static bool IsAssembly(string descriptor) => LinkTarget(descriptor)?.EndsWith(".dll", StringComparison.Ordinal) == true;

    private static string? LinkTarget(string descriptor)
    {
        try
        {
            return new FileInfo(descriptor).LinkTarget;
        }
        catch (IOException)
        {
            return null; // Closed between the listing and the look.
        }
    }

    /// <summary>Threads of this process, from the kernel's count.</summary>
    public static int Threads() => (int)StatusValue("Threads:");

    /// <summary>
    /// Threads whose name starts with <paramref name="prefix"/>. Linux keeps 15 bytes of a thread name, so a prefix
    /// of at most 15 characters is matched exactly.
    /// </summary>
    public static int ThreadsNamed(string prefix)
    {
        int count = 0;
        foreach (string task in Directory.GetDirectories("/proc/self/task"))
        {
            try
            {
                if (File.ReadAllText(Path.Combine(task, "comm")).StartsWith(prefix, StringComparison.Ordinal))
                {
                    count++;
                }
            }
            catch (IOException)
            {
                // The thread exited between the listing and the read.
            }
        }

        return count;
    }

    /// <summary>The resident set now, in bytes.</summary>
    public static long ResidentBytes() => StatusValue("VmRSS:") * 1024;

    /// <summary>The peak resident set since the process started or since <see cref="TryResetPeakResident"/>, in bytes.</summary>
    public static long PeakResidentBytes() => StatusValue("VmHWM:") * 1024;

    /// <summary>Sets the peak resident set back to the current one (Linux 4.0+: "5" to /proc/self/clear_refs).</summary>
    public static bool TryResetPeakResident()
    {
        try
        {
            File.WriteAllText("/proc/self/clear_refs", "5");
            return true;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return false;
        }
    }

    private static long StatusValue(string key)
    {
        foreach (string line in File.ReadLines("/proc/self/status"))
        {
            if (line.StartsWith(key, StringComparison.Ordinal))
            {
                string value = line[key.Length..].Trim();
                int space = value.IndexOf(' ', StringComparison.Ordinal);
                return long.Parse(space < 0 ? value : value[..space], CultureInfo.InvariantCulture);
            }
        }

        throw new InvalidOperationException($"/proc/self/status has no '{key}' line.");
    }
}
