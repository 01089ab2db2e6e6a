using FastLoad.Shared;

namespace FastLoad.Benchmarks;

/// <summary>
/// Where the generated file sets live: under FASTLOAD_BENCH_DATA, or a folder in the temporary directory. A set is
/// generated once (deterministically) and reused by later runs; a marker file records that it is complete.
/// </summary>
internal static class BenchmarkData
{
    public static string Root { get; } = Environment.GetEnvironmentVariable("FASTLOAD_BENCH_DATA")
        ?? Path.Combine(Path.GetTempPath(), "fastload-bench");

    /// <summary>Returns the paths of the named set, generating it first if it is missing or incomplete.</summary>
    public static IReadOnlyList<string> GetOrCreate(string name, int count, int minSize, int maxSize, bool compressible = false)
    {
        string directory = Path.Combine(Root, name);
        string marker = Path.Combine(directory, "complete.txt");
        if (File.Exists(marker))
        {
            return File.ReadAllLines(marker);
        }

        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }

        IReadOnlyList<string> paths = SyntheticFileSet.Create(directory, count, minSize, maxSize, compressible: compressible);
        File.WriteAllLines(marker, paths);
        return paths;
    }

    /// <summary>Evicts the files before a measured iteration; fails loudly where that is impossible, rather than measuring memory.</summary>
    public static void EvictOrThrow(IReadOnlyList<string> paths)
    {
        if (!SyntheticFileSet.Evict(paths))
        {
            throw new PlatformNotSupportedException("Cold-cache benchmarks need page-cache eviction (Linux).");
        }
    }
}
