using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

/// <summary>macOS: opened as on Linux, so that a FIFO or device in a file's place is refused instead of read.</summary>
internal static partial class ReadableFile
{
    // O_NONBLOCK: a FIFO opens at once instead of waiting for a writer; fstat then refuses it, and /dev/zero too.
    private const int DarwinReadFlags =
        Interop.OpenReadOnly | Interop.DarwinOpenCloseOnExec | Interop.DarwinOpenNonBlocking | Interop.DarwinOpenNoControllingTerminal;

    private static SafeFileHandle OpenOSX(string path, out long length) => OpenRegular(path, DarwinReadFlags, FileStatus.GetOSX, out length);
}
