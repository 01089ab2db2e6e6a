namespace FastLoad.Benchmarks;

/// <summary>
/// Seed 001's per-file work, reproduced as it was written: File.OpenRead, copy into a MemoryStream, keep the length.
/// (Its FileStream is not opened for async, so CopyToAsync runs the copy through the stream's async wrappers.)
/// </summary>
internal static class SeedCopy
{
    public static long Copy(string path)
    {
        using FileStream stream = File.OpenRead(path);
        using var memory = new MemoryStream();
        stream.CopyTo(memory);
        return memory.Length;
    }

    public static async Task<long> CopyAsync(string path)
    {
        await using FileStream stream = File.OpenRead(path);
        using var memory = new MemoryStream();
        await stream.CopyToAsync(memory);
        return memory.Length;
    }
}
