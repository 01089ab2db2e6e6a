using Microsoft.Win32.SafeHandles;

namespace FastLoad.Benchmarks;

/// <summary>Reads shared by the scenarios. RandomAccess may return fewer bytes than asked, so every read loops.</summary>
internal static class FileReads
{
    public static int ReadFully(SafeFileHandle handle, Span<byte> destination, long offset)
    {
        int total = 0;
        int read;
        while (total < destination.Length && (read = RandomAccess.Read(handle, destination[total..], offset + total)) > 0)
        {
            total += read;
        }

        return total;
    }

    public static async ValueTask<int> ReadFullyAsync(SafeFileHandle handle, Memory<byte> destination, long offset)
    {
        int total = 0;
        int read;
        while (total < destination.Length && (read = await RandomAccess.ReadAsync(handle, destination[total..], offset + total)) > 0)
        {
            total += read;
        }

        return total;
    }

    /// <summary>Opens a file and reads all of it into <paramref name="destination"/> with one (looped) read.</summary>
    public static int ReadWholeFile(string path, Span<byte> destination)
    {
        using SafeFileHandle handle = File.OpenHandle(path);
        return ReadFully(handle, destination[..(int)RandomAccess.GetLength(handle)], 0);
    }
}
