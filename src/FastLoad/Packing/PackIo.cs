using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Packing;

/// <summary>Positional reads and writes of a pack that loop over short transfers.</summary>
internal static class PackIo
{
    /// <summary>Reads exactly <paramref name="buffer"/>'s length at <paramref name="offset"/>; a pack that ends early is corrupt.</summary>
    public static void ReadExactly(SafeFileHandle handle, Span<byte> buffer, long offset, string packPath)
    {
        int read = ChunkedReader.ReadFully(handle, packPath, buffer, offset);
        if (read < buffer.Length)
        {
            throw PackErrors.Corrupt(packPath, offset + read, $"the file ends {buffer.Length - read} bytes early (truncated while open?)");
        }
    }
}
