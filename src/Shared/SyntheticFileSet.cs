namespace FastLoad.Shared;

/// <summary>
/// Writes a deterministic set of files (the same seed gives the same names, sizes and bytes on every machine), and
/// evicts sets from the page cache before a measurement. Shared by the tool, the benchmarks and the tests.
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

    /// <summary>
    /// Drops every file it can from the page cache, as <see cref="Evict"/> does; a file that vanished or can no longer be
    /// opened since it was listed (a folder that changes under a measurement) is left for the load to report.
    /// </summary>
    /// <returns>How many files could not be evicted; 0 where the OS cannot evict.</returns>
    public static int EvictPresent(IEnumerable<string> paths) =>
        PageCache.IsEvictionSupported ? paths.Count(path => !TryEvict(path)) : 0;

    /// <summary>
    /// Evicts each file it can and yields it; a file that cannot be opened (a FIFO, no permission, gone) is left out,
    /// for a load to report. Where the OS cannot evict, yields the files that exist. Lazy: only what is taken is evicted.
    /// </summary>
    public static IEnumerable<string> EvictReadable(IEnumerable<string> paths) =>
        paths.Where(path => PageCache.IsEvictionSupported ? TryEvict(path) : File.Exists(path));

    private static bool TryEvict(string path)
    {
        try
        {
            PageCache.Evict(path);
            return true;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return false;
        }
    }

    private static readonly string[] Words =
    [
        "name", "id", "type", "value", "path", "size", "width", "height", "color", "enabled", "title", "items", "index",
        "format", "version", "offset", "count", "scale", "mode", "layer", "group", "texture", "shader", "sound", "font",
        "style", "label", "source", "target", "frame",
    ];

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

        // JSON-like lines: keys and some values from a small vocabulary (repeats LZ4 finds), the rest random hex ids
        // and numbers (which it cannot): LZ4 halves it in 1 MiB blocks, as it does real text assets. Random letters
        // alone would not compress at all, since LZ4 only finds repeats.
        int at = 0;
        while (at < destination.Length)
        {
            string key = Words[random.Next(Words.Length)];
            string value = random.Next(4) switch
            {
                0 => $"\"{Words[random.Next(Words.Length)]}\"",
                1 => $"\"{random.Next():x8}\"",
                _ => random.Next((int)Math.Pow(10, random.Next(1, 7))).ToString(System.Globalization.CultureInfo.InvariantCulture),
            };
            foreach (char c in $"\"{key}\": {value},\n")
            {
                if (at == destination.Length)
                {
                    break;
                }

                destination[at++] = (byte)c;
            }
        }
    }
}
