namespace FastLoad.Tests.Infrastructure;

/// <summary>Gives each test class instance a fresh directory, removed afterwards; cleanup never throws.</summary>
public abstract class TempDirectoryTestBase : IDisposable
{
    protected TempDirectoryTestBase()
    {
        Root = Path.Combine(Path.GetTempPath(), "fastload-tests", Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Root);
    }

    protected string Root { get; }

    protected string WriteFile(string relativePath, byte[] contents)
    {
        string path = Path.Combine(Root, relativePath);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllBytes(path, contents);
        return path;
    }

    protected string WriteFile(string relativePath, int length, int seed = 0) =>
        WriteFile(relativePath, Contents(length, seed));

    /// <summary>Deterministic, position-dependent bytes, so that a shifted or mixed-up buffer is caught.</summary>
    protected static byte[] Contents(int length, int seed)
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

    private static void MakeWritable(string directory)
    {
        if (OperatingSystem.IsWindows())
        {
            return;
        }

        foreach (string entry in Directory.EnumerateFileSystemEntries(directory, "*", new EnumerationOptions { RecurseSubdirectories = true, AttributesToSkip = 0 }))
        {
            try
            {
                if (!new FileInfo(entry).Attributes.HasFlag(FileAttributes.ReparsePoint))
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
