using System.Net.Sockets;
using System.Runtime.InteropServices;

namespace FastLoad.Tests.Infrastructure;

/// <summary>Makes the special files the bad-input tests need.</summary>
internal static unsafe partial class Native
{
    private const int OpenWriteOnly = 0x1;
    private const int OpenCreate = 0x40;
    private const int OpenExclusive = 0x80;

    [LibraryImport("libc", EntryPoint = "mkfifo", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
    private static partial int MkFifo(string path, uint mode);

    // open(2) is variadic; with integer arguments only, the x64 and arm64 Linux calling conventions match this.
    [LibraryImport("libc", EntryPoint = "open", SetLastError = true)]
    private static partial int Open(byte* path, int flags, int mode);

    [LibraryImport("libc", EntryPoint = "write", SetLastError = true)]
    private static partial nint Write(int fd, byte* buffer, nint count);

    [LibraryImport("libc", EntryPoint = "close", SetLastError = true)]
    private static partial int Close(int fd);

    [LibraryImport("libc", EntryPoint = "unlink", SetLastError = true)]
    private static partial int Unlink(byte* path);

    [LibraryImport("libc", EntryPoint = "mkdir", SetLastError = true)]
    private static partial int MakeDirectory(byte* path, int mode);

    [LibraryImport("libc", EntryPoint = "rmdir", SetLastError = true)]
    private static partial int RemoveDirectory(byte* path);

    public static string CreateFifo(string path)
    {
        Assert.Equal(0, MkFifo(path, Convert.ToUInt32("644", 8)));
        return path;
    }

    /// <summary>Binds a Unix domain socket at <paramref name="path"/>; dispose the socket to close it.</summary>
    public static Socket CreateSocketFile(string path)
    {
        var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        socket.Bind(new UnixDomainSocketEndPoint(path));
        return socket;
    }

    /// <summary>
    /// Creates a file in <paramref name="directory"/> whose name is exactly <paramref name="rawName"/>: .NET strings
    /// cannot carry a name that is not valid UTF-8, so the bytes go to open(2) as they are. Dispose the result to
    /// delete the file: .NET cannot name it to delete it either, so the temporary directory would stay behind.
    /// </summary>
    public static IDisposable CreateFileWithRawName(string directory, ReadOnlySpan<byte> rawName, ReadOnlySpan<byte> contents)
    {
        byte[] path = [.. System.Text.Encoding.UTF8.GetBytes(directory), (byte)'/', .. rawName, 0];
        WriteNewFile(path, contents);
        return new RawNamedFile(path);
    }

    private static void WriteNewFile(byte[] nulTerminatedPath, ReadOnlySpan<byte> contents)
    {
        fixed (byte* p = nulTerminatedPath)
        fixed (byte* data = contents)
        {
            int fd = Open(p, OpenWriteOnly | OpenCreate | OpenExclusive, Convert.ToInt32("644", 8));
            Assert.True(fd >= 0, $"open failed: errno {Marshal.GetLastPInvokeError()}");
            try
            {
                Assert.Equal(contents.Length, (int)Write(fd, data, contents.Length));
            }
            finally
            {
                Close(fd);
            }
        }
    }

    /// <summary>
    /// Creates a folder in <paramref name="directory"/> named exactly <paramref name="rawName"/> holding one file,
    /// <paramref name="fileName"/>. Dispose the result to delete both (.NET cannot name them to delete them).
    /// </summary>
    public static IDisposable CreateFolderWithRawName(string directory, ReadOnlySpan<byte> rawName, string fileName, ReadOnlySpan<byte> contents)
    {
        byte[] folder = [.. System.Text.Encoding.UTF8.GetBytes(directory), (byte)'/', .. rawName, 0];
        fixed (byte* p = folder)
        {
            Assert.True(MakeDirectory(p, Convert.ToInt32("755", 8)) == 0, $"mkdir failed: errno {Marshal.GetLastPInvokeError()}");
        }

        byte[] filePath = [.. folder.AsSpan(0, folder.Length - 1), (byte)'/', .. System.Text.Encoding.UTF8.GetBytes(fileName), 0];
        WriteNewFile(filePath, contents);

        return new RawNamedFolder(folder, filePath);
    }

    private sealed class RawNamedFolder(byte[] nulTerminatedFolder, byte[] nulTerminatedFile) : IDisposable
    {
        public void Dispose()
        {
            fixed (byte* file = nulTerminatedFile)
            fixed (byte* folder = nulTerminatedFolder)
            {
                Unlink(file);
                RemoveDirectory(folder);
            }
        }
    }

    private sealed class RawNamedFile(byte[] nulTerminatedPath) : IDisposable
    {
        public void Dispose()
        {
            fixed (byte* p = nulTerminatedPath)
            {
                Unlink(p);
            }
        }
    }
}
