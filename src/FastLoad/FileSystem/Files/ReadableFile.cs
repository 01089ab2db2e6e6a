using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

/// <summary>Opens files for reading without ever blocking on something that is not a regular file.</summary>
internal static partial class ReadableFile
{
    /// <summary>
    /// Opens <paramref name="path"/> and checks that what was opened is a regular file, returning its length at
    /// the moment of opening. Throws an exception naming the path and the cause otherwise.
    /// </summary>
    public static SafeFileHandle Open(string path, out long length)
    {
        if (OperatingSystem.IsLinux())
        {
            return OpenLinux(path, out length);
        }

        if (OperatingSystem.IsMacOS())
        {
            return OpenOSX(path, out length);
        }

        if (OperatingSystem.IsWindows())
        {
            return OpenWindows(path, out length);
        }

        SafeFileHandle handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        try
        {
            length = RandomAccess.GetLength(handle);
            return handle;
        }
        catch
        {
            handle.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Opens <paramref name="path"/> as <see cref="Open(string, out long)"/> does, by its name in <paramref name="folder"/>
    /// where that is a descriptor of the folder holding it (Linux, <see cref="OpenFolders"/>); -1 opens it by its path.
    /// </summary>
    public static SafeFileHandle Open(string path, int folder, out long length) =>
        folder >= 0 && OperatingSystem.IsLinux() ? OpenRegular(path, ReadFlags, FileStatus.GetLinux, out length, folder) : Open(path, out length);

    /// <summary>
    /// Opens <paramref name="path"/> as <see cref="Open(string, int, out long)"/> does, but a file that cannot be opened
    /// or is not a regular file gives <see langword="null"/> and its exception, made rather than thrown (Linux): a load
    /// of many such files pays no exception dispatch for each. Elsewhere the exception of the open is caught.
    /// </summary>
    public static SafeFileHandle? TryOpen(string path, int folder, out long length, out Exception? failure)
    {
        if (OperatingSystem.IsLinux())
        {
            return TryOpenRegular(path, ReadFlags, FileStatus.GetLinux, folder, out length, out failure);
        }

        failure = null;
        try
        {
            return Open(path, folder, out length);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            length = 0;
            failure = ex;
            return null;
        }
    }

    /// <summary>
    /// Another handle to the same open file with a readahead state of its own (Linux), so that several sequential
    /// streams over one file each keep the kernel's readahead; <see langword="null"/> where not available, and the
    /// caller shares <paramref name="handle"/>.
    /// </summary>
    public static SafeFileHandle? TryReopen(SafeFileHandle handle) => OperatingSystem.IsLinux() ? TryReopenLinux(handle) : null;

    /// <summary>
    /// Asks the kernel to start reading <paramref name="length"/> bytes of the file at <paramref name="offset"/> into
    /// the page cache and returns once the reads are sent (Linux: <c>posix_fadvise(WILLNEED)</c>); elsewhere nothing.
    /// A hint: a failure leaves the bytes to the reads that follow.
    /// </summary>
    public static void AdviseWillNeed(SafeFileHandle handle, long offset, long length)
    {
        if (OperatingSystem.IsLinux())
        {
            AdviseWillNeedLinux(handle, offset, length);
        }
    }

    internal static IOException NotRegularFile(string path, FileKind kind) =>
        new($"'{path}' is {FileStatus.Describe(kind)}, not a regular file; only regular files are loaded.");
}
