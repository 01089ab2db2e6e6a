using System.Globalization;
using FastLoad.Packing;
using FastLoad.Shared;

namespace FastLoad.Benchmarks;

/// <summary>
/// Where the generated file sets live: under FASTLOAD_BENCH_DATA, or a folder in the temporary directory. A set is
/// generated once (deterministically) and reused by later runs; a file next to its folder lists its paths and records
/// that it is complete (kept outside the folder so that fio's --opendir reads exactly the set).
/// </summary>
internal static class BenchmarkData
{
    /// <summary>Gets or sets the folder of the generated sets (tests point it at a temporary folder).</summary>
    public static string Root { get; set; } = Environment.GetEnvironmentVariable("FASTLOAD_BENCH_DATA")
        ?? Path.Combine(Path.GetTempPath(), "fastload-bench");

    /// <summary>Gets or sets the factor applied to the file counts of the many-files groups (FASTLOAD_BENCH_SCALE, default 1).</summary>
    public static double Scale { get; set; } = double.TryParse(
        Environment.GetEnvironmentVariable("FASTLOAD_BENCH_SCALE"), NumberStyles.Float, CultureInfo.InvariantCulture, out double scale) && scale > 0
        ? scale
        : 1.0;

    /// <summary>Gets an existing folder to load as an extra "folder" group (FASTLOAD_BENCH_FOLDER), or null.</summary>
    public static string? Folder => Environment.GetEnvironmentVariable("FASTLOAD_BENCH_FOLDER") is { Length: > 0 } folder ? folder : null;

    public static string DirectoryOf(string name) => Path.Combine(Root, name);

    /// <summary>Returns the paths of the named set, generating it first if it is missing or incomplete.</summary>
    public static IReadOnlyList<string> GetOrCreate(string name, int count, int minSize, int maxSize, bool compressible = false) =>
        GetOrCreate(name, directory => SyntheticFileSet.Create(directory, count, minSize, maxSize, compressible: compressible));

    /// <summary>Returns the paths of the named set, calling <paramref name="create"/> with its folder first if it is missing or incomplete.</summary>
    public static IReadOnlyList<string> GetOrCreate(string name, Func<string, IReadOnlyList<string>> create)
    {
        string directory = DirectoryOf(name);
        string marker = directory + ".paths";
        if (File.Exists(marker))
        {
            return File.ReadAllLines(marker);
        }

        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }

        IReadOnlyList<string> paths = create(directory);
        File.WriteAllLines(marker, paths);
        return paths;
    }

    /// <summary>
    /// The pack of the named set's <paramref name="paths"/>, beside the generated sets; written the first time. Named by
    /// the format the writer writes and its default level, so that a pack kept from an earlier run of another format or
    /// level (which loads by another path, or decodes at another speed) is not measured in its place.
    /// </summary>
    public static string GetOrCreatePack(string name, IReadOnlyList<string> paths)
    {
        string pack = Path.Combine(Root, $"{name}.v{PackFormat.Version}-level{new PackOptions().Level}.fpk");
        if (!File.Exists(pack))
        {
            // The paths, not the folder: a generated set's folder also holds its marker file.
            Directory.CreateDirectory(Root);
            PackWriter.CreateAsync(pack, FileSet.FromPaths(paths)).GetAwaiter().GetResult();
        }

        return pack;
    }

    /// <summary>Every regular file under <paramref name="folder"/>, in ordinal order, so that runs compare the same list.</summary>
    public static IReadOnlyList<string> FilesUnder(string folder)
    {
        var options = new EnumerationOptions { RecurseSubdirectories = true, IgnoreInaccessible = true, AttributesToSkip = FileAttributes.ReparsePoint };
        string[] paths = Directory.GetFiles(folder, "*", options);
        Array.Sort(paths, StringComparer.Ordinal);
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
