namespace FastLoad.Tests.Infrastructure;

/// <summary>Gives each test class instance a fresh directory, removed afterwards; cleanup never throws.</summary>
public abstract class TempDirectoryTestBase : IDisposable
{
    protected TempDirectoryTestBase()
        : this(Path.GetTempPath())
    {
    }

    /// <summary>Creates the directory under <paramref name="parent"/> instead of the system's temporary folder.</summary>
    protected TempDirectoryTestBase(string parent)
    {
        Root = Path.Combine(parent, "fastload-tests", Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Root);
    }

    /// <summary>
    /// A memory-backed folder (Linux: /dev/shm) where there is one, else the temporary folder. For tests that create
    /// and delete 100,000 files: on this project's busy VM disk that alone takes a minute, on tmpfs a few seconds.
    /// </summary>
    protected static string MemoryBackedTempPath { get; } =
        OperatingSystem.IsLinux() && Directory.Exists("/dev/shm") ? "/dev/shm" : Path.GetTempPath();

    protected string Root { get; }

    /// <summary>Writes a file under <see cref="Root"/>; <paramref name="relativePath"/> may use '/' on every OS, and the path returned uses the OS's separator, as enumeration gives it.</summary>
    protected string WriteFile(string relativePath, byte[] contents)
    {
        string path = Path.Combine(Root, relativePath).Replace('/', Path.DirectorySeparatorChar);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllBytes(path, contents);
        return path;
    }

    protected string WriteFile(string relativePath, int length, int seed = 0) =>
        WriteFile(relativePath, Contents(length, seed));

    /// <summary>
    /// Writes each file's pages back to the disk now (fsync): they stay cached, and clean, so that a test of cached reads
    /// does not meet a page the kernel has locked to write back, which a read that must not wait reports as a wait.
    /// </summary>
    protected static void WriteBack(IEnumerable<string> paths)
    {
        ArgumentNullException.ThrowIfNull(paths);
        foreach (string path in paths)
        {
            using var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite);
            file.Flush(flushToDisk: true);
        }
    }

    /// <summary>Deterministic, position-dependent bytes, so that a shifted or mixed-up buffer is caught.</summary>
    protected internal static byte[] Contents(int length, int seed)
    {
        byte[] bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }

    public void Dispose()
    {
        try
        {
            MakeWritable(Root);
            Directory.Delete(Root, recursive: true);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // A leftover temporary directory must not fail a test.
        }

        GC.SuppressFinalize(this);
    }

    // Deleting an entry needs write and search permission on its directory, never on the entry itself: only
    // directories are made writable, so a folder of 100,000 files costs no call per file.
    private static void MakeWritable(string directory)
    {
        if (OperatingSystem.IsWindows())
        {
            return;
        }

        foreach (string entry in Directory.EnumerateDirectories(directory, "*", new EnumerationOptions { RecurseSubdirectories = true, AttributesToSkip = 0 }).Prepend(directory))
        {
            try
            {
                if (!new DirectoryInfo(entry).Attributes.HasFlag(FileAttributes.ReparsePoint))
                {
                    File.SetUnixFileMode(entry, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
                }
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
            }
        }
    }
}
