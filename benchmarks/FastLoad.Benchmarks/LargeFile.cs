using System.Text;

namespace FastLoad.Benchmarks;

/// <summary>
/// The single large file of seeds 002 and 004: text made of words from a small vocabulary, which LZ4 shrinks to about
/// half, as the seed's data shrank; written in 1 MiB pieces, so a 1 GiB file needs no 1 GiB buffer.
/// </summary>
internal static class LargeFile
{
    private static readonly byte[][] Words = [.. (
        "the file load read disk cache page block queue depth thread pool async buffer stream memory config asset " +
        "texture json value name index offset length count error device parallel sequential random order time " +
        "0 1 2 3 4 5 6 7 8 9 { } [ ] : , \" true false null id path size data").Split(' ').Select(Encoding.ASCII.GetBytes)];

    public static string GetOrCreate(int sizeMiB) =>
        BenchmarkData.GetOrCreate($"large-text-{sizeMiB}MiB", directory => [Write(directory, (long)sizeMiB << 20)])[0];

    private static string Write(string directory, long size)
    {
        Directory.CreateDirectory(directory);
        string path = Path.Combine(directory, "large.txt");
        var random = new Random(42);
        byte[] chunk = new byte[1 << 20];
        using (var stream = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.None, bufferSize: 0))
        {
            for (long written = 0; written < size; written += chunk.Length)
            {
                Fill(random, chunk);
                stream.Write(chunk, 0, (int)Math.Min(chunk.Length, size - written));
            }
        }

        return path; // Every benchmark evicts it before each measured iteration.
    }

    private static void Fill(Random random, Span<byte> chunk)
    {
        int position = 0;
        while (position < chunk.Length)
        {
            byte[] word = Words[random.Next(Words.Length)];
            int length = Math.Min(word.Length, chunk.Length - position);
            word.AsSpan(0, length).CopyTo(chunk[position..]);
            position += length;
            if (position < chunk.Length)
            {
                chunk[position++] = random.Next(12) == 0 ? (byte)'\n' : (byte)' ';
            }
        }
    }
}
