using System.Runtime.InteropServices;

namespace FastLoad.FileSystem;

/// <summary>Turns an errno into the exception .NET itself would throw, always naming the path.</summary>
internal static class NativeErrors
{
    public static Exception ForPath(int errno, string path, string action)
    {
        string reason = Marshal.GetPInvokeErrorMessage(errno);
        string message = $"Could not {action} '{path}': {reason}";
        return errno switch
        {
            Interop.ENOENT or Interop.ENOTDIR => new FileNotFoundException(message, path),
            Interop.EACCES or Interop.EPERM => new UnauthorizedAccessException(message),
            Interop.ENAMETOOLONG => new PathTooLongException(message),
            _ => new IOException(message, errno),
        };
    }
}
