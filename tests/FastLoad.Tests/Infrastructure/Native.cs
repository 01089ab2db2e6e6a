using System.Net.Sockets;
using System.Runtime.InteropServices;

namespace FastLoad.Tests.Infrastructure;

/// <summary>Makes the special files the bad-input tests need.</summary>
internal static partial class Native
{
    [LibraryImport("libc", EntryPoint = "mkfifo", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
    private static partial int MkFifo(string path, uint mode);

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
}
