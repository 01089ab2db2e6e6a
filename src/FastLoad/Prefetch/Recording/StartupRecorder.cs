using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Reflection;
using System.Text;
using FastLoad.Engine;
using FastLoad.FileSystem;

namespace FastLoad.Prefetch;

/// <summary>
/// Records a start when it ends: the files FastLoad read since <c>Begin</c> (<see cref="LoadedFiles"/>), what the
/// process mapped (Linux: the pages <c>/proc/self/pagemap</c> shows present in each file mapping of
/// <c>/proc/self/maps</c>; elsewhere the loaded assemblies and modules, whole), the files the .NET host reads without
/// mapping them, and the options' additional files, into a manifest, bounded and canonical.
/// </summary>
internal static partial class StartupRecorder
{
    /// <summary>Ranges per file: beyond this, the nearest are joined across their gaps.</summary>
    internal const int MaxRangesPerFile = 1024;

    // Who asked for a file decides who keeps it when the manifest is full: the application's own list first, then
    // what the runtime mapped, then what FastLoad loaded, then what the host read.
    private const int Additional = 0;
    private const int Mapped = 1;
    private const int Loaded = 2;
    private const int HostRead = 3;

    /// <summary>What this start read, as a manifest of <paramref name="buildKey"/>; <paramref name="manifestPaths"/> are left out.</summary>
    public static StartupManifest Record(LoadedFiles loadedFiles, string buildKey, StartupPrefetchOptions options, PrefetchTestHooks hooks, IReadOnlyCollection<string> manifestPaths)
    {
        var candidates = new Dictionary<string, Candidate>(StringComparer.Ordinal);
        foreach (string file in options.AdditionalFiles)
        {
            Add(candidates, Path.GetFullPath(file), Additional).AddWhole();
        }

        if (OperatingSystem.IsLinux())
        {
            AddMappedFilesLinux(candidates);
        }
        else
        {
            AddLoadedModules(candidates);
        }

        foreach (string file in loadedFiles.ToArray())
        {
            Add(candidates, file, Loaded).AddWhole();
        }

        if (!OperatingSystem.IsWindows())
        {
            AddHostFiles(candidates, hooks);
        }

        return Build(buildKey, candidates, options, hooks, manifestPaths);
    }

    private static StartupManifest Build(
        string buildKey, Dictionary<string, Candidate> candidates, StartupPrefetchOptions options, PrefetchTestHooks hooks, IReadOnlyCollection<string> manifestPaths)
    {
        var ordered = new List<Candidate>(candidates.Values);
        ordered.Sort(static (a, b) => a.Priority != b.Priority ? a.Priority.CompareTo(b.Priority) : ManifestFormat.ComparePaths(a.Utf8Path, b.Utf8Path));
        var kept = new List<Candidate>();
        long bytesLeft = options.MaxManifestBytes;
        int rangesLeft = ManifestFormat.MaxRanges;
        foreach (Candidate candidate in ordered)
        {
            if (kept.Count == options.MaxManifestFiles || bytesLeft == 0 || rangesLeft == 0)
            {
                break;
            }

            string path = candidate.Path;
            if (manifestPaths.Contains(path) || candidate.Utf8Path.Length > ManifestFormat.MaxPathBytes || hooks.RecordFilter?.Invoke(path) == false)
            {
                continue;
            }

            FileVersion version;
            try
            {
                version = FileVersion.Get(path);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                continue; // Gone since it was read: nothing to warm.
            }

            if (version.Kind != FileKind.Regular || version.Length == 0)
            {
                continue;
            }

            StartupManifestRange[] ranges = Truncate(candidate.Ranges.Normalize(version.Length, MaxRangesPerFile), ref bytesLeft, ref rangesLeft);
            if (ranges.Length > 0)
            {
                candidate.File = new StartupManifestFile(path, version.Length, version.LastWriteUnixNanoseconds, ranges);
                kept.Add(candidate);
            }
        }

        kept.Sort(static (a, b) => ManifestFormat.ComparePaths(a.Utf8Path, b.Utf8Path));
        var files = new StartupManifestFile[kept.Count];
        for (int i = 0; i < files.Length; i++)
        {
            files[i] = kept[i].File!;
        }

        return new StartupManifest(buildKey, files);
    }

    /// <summary>The ranges that fit in what is left of the manifest's bytes and ranges; the last one cut short if need be.</summary>
    private static StartupManifestRange[] Truncate(StartupManifestRange[] ranges, ref long bytesLeft, ref int rangesLeft)
    {
        int kept = 0;
        while (kept < ranges.Length && bytesLeft > 0 && rangesLeft > 0)
        {
            long length = Math.Min(ranges[kept].Length, bytesLeft);
            ranges[kept] = ranges[kept] with { Length = length };
            bytesLeft -= length;
            rangesLeft--;
            kept++;
        }

        return kept == ranges.Length ? ranges : ranges[..kept];
    }

    private static RangeSet Add(Dictionary<string, Candidate> candidates, string path, int priority)
    {
        if (!candidates.TryGetValue(path, out Candidate? candidate))
        {
            candidates.Add(path, candidate = new Candidate(path, priority));
        }

        candidate.Priority = Math.Min(candidate.Priority, priority);
        return candidate.Ranges;
    }

    /// <summary>
    /// Off Linux, what stands for the mapped files: the assemblies loaded from files and the process's native modules,
    /// whole (nothing tells which of their pages were read).
    /// </summary>
    [UnconditionalSuppressMessage("SingleFile", "IL3000", Justification = "An assembly without a file (single-file, NativeAOT) has an empty Location and is skipped.")]
    private static void AddLoadedModules(Dictionary<string, Candidate> candidates)
    {
        foreach (Assembly assembly in AppDomain.CurrentDomain.GetAssemblies())
        {
            if (!assembly.IsDynamic && assembly.Location is { Length: > 0 } location)
            {
                Add(candidates, location, Mapped).AddWhole();
            }
        }

        try
        {
            using Process process = Process.GetCurrentProcess();
            foreach (ProcessModule module in process.Modules)
            {
                if (module.FileName is { Length: > 0 } file && Path.IsPathFullyQualified(file))
                {
                    Add(candidates, file, Mapped).AddWhole();
                }
            }
        }
        catch (Exception ex) when (ex is PlatformNotSupportedException or NotSupportedException or InvalidOperationException or System.ComponentModel.Win32Exception)
        {
            // Some platforms do not list a process's modules: the assemblies above stand for them.
        }
    }

    private sealed class Candidate(string path, int priority)
    {
        public string Path { get; } = path;

        public int Priority { get; set; } = priority;

        public RangeSet Ranges { get; } = new();

        /// <summary>The path as the manifest orders it, encoded once rather than at every comparison of the sorts.</summary>
        public byte[] Utf8Path => field ??= Encoding.UTF8.GetBytes(Path);

        /// <summary>The file's record, once it is kept.</summary>
        public StartupManifestFile? File { get; set; }
    }
}
