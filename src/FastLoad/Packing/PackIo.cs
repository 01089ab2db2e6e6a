using Microsoft.Win32.SafeHandles;

namespace FastLoad.Packing;

/// <summary>Positional reads and writes of a pack that loop over short transfers.</summary>
internal static class PackIo
{
    /// <summary>Reads exactly <paramref name="buffer"/>'s length at <paramref name="offset"/>; a pack that ends early is corrupt.</summary>
    public static void ReadExactly(SafeFileHandle handle, Span<byte> buffer, long offset, string packPath)
    {
        int total = 0;
        while (total < buffer.Length)
        {
            int read = RandomAccess.Read(handle, buffer[total..], offset + total);
            if (read == 0)
            {
                throw PackErrors.Corrupt(packPath, offset + total, $"the file ends {buffer.Length - total} bytes early (truncated while open?)");
            }

            total += read;
        }
    }
}
