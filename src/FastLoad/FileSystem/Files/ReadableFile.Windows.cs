using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

/// <summary>Windows: an overlapped handle, refused unless it is a file on a disk.</summary>
internal static partial class ReadableFile
{
    /// <summary>
    /// Opens <paramref name="path"/> overlapped: Windows runs the requests on a synchronous handle one after another, so
    /// the reads in flight of a large file would queue; on an overlapped handle <see cref="RandomAccess"/> still reads
    /// synchronously, and they run at once. A directory or a device is reported as what it is, not as access denied or
    /// a read that never ends.
    /// </summary>
    [SupportedOSPlatform("windows")]
    private static SafeFileHandle OpenWindows(string path, out long length)
    {
        SafeFileHandle handle;
        try
        {
            handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, FileOptions.Asynchronous);
        }
        catch (UnauthorizedAccessException) when (Directory.Exists(path))
        {
            // CreateFileW opens a directory only with FILE_FLAG_BACKUP_SEMANTICS; without it the answer is access denied.
            throw NotRegularFile(path, FileKind.Directory);
        }

        try
        {
            // NUL, CON, COM1 and pipes open like files; reading a console or a pipe could wait for ever.
            FileKind kind = Interop.GetFileType(handle) switch
            {
                Interop.FileTypeDisk => FileKind.Regular,
                Interop.FileTypeChar => FileKind.CharacterDevice,
                Interop.FileTypePipe => FileKind.Fifo,
                _ => FileKind.Unknown,
            };
            if (kind != FileKind.Regular)
            {
                throw NotRegularFile(path, kind);
            }

            length = RandomAccess.GetLength(handle);
            return handle;
        }
        catch
        {
            handle.Dispose();
            throw;
        }
    }
}
