namespace FastLoad.Shared;

/// <summary>
/// Writes a deterministic set of files (the same seed gives the same names, sizes and bytes on every machine) and
/// evicts them from the page cache, so that loads of it start cold. Shared by the tool, the benchmarks and the tests.
/// </summary>
internal static class SyntheticFileSet
{
    /// <summary>Files per subdirectory: keeps directories small, as real asset trees are.</summary>
    private const int FilesPerDirectory = 500;

    /// <summary>
    /// Creates <paramref name="count"/> files of sizes drawn log-uniformly from [<paramref name="minSize"/>, <paramref name="maxSize"/>]
    /// (as many files of 2-4 KiB as of 64-128 KiB, as in real asset and configuration trees; for 2-128 KiB the mean is about 30 KiB).
    /// </summary>
    /// <returns>The paths, in creation order.</returns>
    public static IReadOnlyList<string> Create(string root, int count, int minSize, int maxSize, int seed = 42, bool compressible = false)
    {
        var random = new Random(seed);
        var paths = new List<string>(count);
        byte[] buffer = new byte[maxSize];
        for (int i = 0; i < count; i++)
        {
            string directory = Path.Combine(root, $"d{i / FilesPerDirectory:D3}");
            if (i % FilesPerDirectory == 0)
            {
                Directory.CreateDirectory(directory);
            }

            int size = NextSize(random, minSize, maxSize);
            Fill(random, buffer.AsSpan(0, size), compressible);
            string path = Path.Combine(directory, $"f{i:D6}.bin");
            using (var stream = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.None, bufferSize: 0))
            {
                stream.Write(buffer, 0, size);
            }

            paths.Add(path);
        }

        Evict(paths);
        return paths;
    }

    /// <summary>Drops every file from the page cache (fsync + POSIX_FADV_DONTNEED); returns false where the OS cannot.</summary>
    public static bool Evict(IEnumerable<string> paths)
    {
        if (!PageCache.IsEvictionSupported)
        {
            return false;
        }

        foreach (string path in paths)
        {
            PageCache.Evict(path);
        }

        return true;
    }

    private static int NextSize(Random random, int minSize, int maxSize)
    {
        if (minSize == maxSize)
        {
            return minSize;
        }

        double low = Math.Log(Math.Max(1, minSize));
        double high = Math.Log(maxSize);
        return Math.Clamp((int)Math.Round(Math.Exp(low + (random.NextDouble() * (high - low)))), minSize, maxSize);
    }

    private static void Fill(Random random, Span<byte> destination, bool compressible)
    {
        if (!compressible)
        {
            random.NextBytes(destination);
            return;
        }

        // Text-like bytes from a small alphabet with repeated runs: LZ4 shrinks it to about half.
        const string Alphabet = "etaoin shrdlu{}\":,\n0123456789";
        for (int i = 0; i < destination.Length; i++)
        {
            destination[i] = (byte)Alphabet[random.Next(Alphabet.Length)];
        }
    }
}
