using System.Runtime.Versioning;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Prefetch;

internal static partial class StartupRecorder
{
    /// <summary>Host files are small JSON; a larger file of that name is someone else's data.</summary>
    private const long MaxHostFileLength = 1024 * 1024;

    /// <summary>
    /// The files the .NET host and the configuration read with <c>read</c> rather than mapping them: the
    /// <c>*.deps.json</c> and <c>*.runtimeconfig.json</c> beside each mapped assembly (the application's and each
    /// framework's), and the JSON files in the application's folder (<c>appsettings.json</c>). Each is kept whole if
    /// any of it is in the page cache, which after a start means it was read.
    /// </summary>
    [UnsupportedOSPlatform("windows")]
    private static void AddHostFiles(Dictionary<string, Candidate> candidates, PrefetchTestHooks hooks)
    {
        string appDirectory = Path.TrimEndingDirectorySeparator(Path.GetFullPath(hooks.AppDirectory ?? AppContext.BaseDirectory));
        var directories = new SortedSet<string>(StringComparer.Ordinal) { appDirectory };
        foreach ((string path, Candidate candidate) in candidates)
        {
            if (candidate.Priority == Mapped && path.EndsWith(".dll", StringComparison.OrdinalIgnoreCase) && Path.GetDirectoryName(path) is { } directory)
            {
                directories.Add(directory);
            }
        }

        foreach (string directory in directories)
        {
            bool isApp = directory == appDirectory;
            IEnumerable<string> files;
            try
            {
                files = Directory.EnumerateFiles(directory, "*.json").ToList();
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                continue;
            }

            foreach (string file in files)
            {
                if ((isApp || file.EndsWith(".deps.json", StringComparison.Ordinal) || file.EndsWith(".runtimeconfig.json", StringComparison.Ordinal))
                    && !candidates.ContainsKey(file))
                {
                    var ranges = new RangeSet();
                    if (AddCached(ranges, file, whole: true))
                    {
                        Add(candidates, file, HostRead).AddAll(ranges);
                    }
                }
            }
        }
    }

    /// <summary>Adds the cached parts of <paramref name="path"/> (or, with <paramref name="whole"/>, all of it if any part is cached).</summary>
    /// <returns>Whether any part is cached.</returns>
    [UnsupportedOSPlatform("windows")]
    private static bool AddCached(RangeSet ranges, string path, bool whole)
    {
        var runs = new ResidencyRuns();
        try
        {
            using SafeFileHandle handle = ReadableFile.Open(path, out long length);
            if (length == 0 || (whole && length > MaxHostFileLength) || !PageResidency.TryGetRuns(handle, [new StartupManifestRange(0, length)], length, runs))
            {
                return false;
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return false;
        }

        bool any = false;
        for (int i = 0; i < runs.Count; i++)
        {
            if (runs.IsResident(i))
            {
                any = true;
                if (!whole)
                {
                    ranges.Add(runs.Start(i), runs.End(i));
                }
            }
        }

        if (any && whole)
        {
            ranges.AddWhole();
        }

        return any;
    }
}
