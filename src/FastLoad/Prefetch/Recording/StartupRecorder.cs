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
/// mapping them, and the options' additional files, into a manifest, bounded and canonical, with each file's place in
/// the order the start first used them where that is known.
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

    /// <summary>
    /// The .NET host's files that it loads before it reads its JSON files, and then the runtime's core, in the order a
    /// start loads them: before <c>Main</c> the host maps these and faults on them, so a replay that starts with the
    /// process (<c>fastload prefetch &amp;</c>) reads them first.
    /// </summary>
    private static readonly string[] HostExecutables = ["dotnet", "dotnet.exe"];

    private static readonly string[] HostLibraries = ["libhostfxr.so", "libhostfxr.dylib", "hostfxr.dll"];

    private static readonly string[] RuntimeCoreInLoadOrder =
    [
        "libhostpolicy.so", "libhostpolicy.dylib", "hostpolicy.dll",
        "libcoreclr.so", "libcoreclr.dylib", "coreclr.dll",
        "System.Private.CoreLib.dll",
        "libclrjit.so", "libclrjit.dylib", "clrjit.dll",
        "libSystem.Native.so", "libSystem.Native.dylib",
    ];

    /// <summary>What this start read, as a manifest of <paramref name="buildKey"/>; <paramref name="manifestPaths"/> are left out.</summary>
    public static StartupManifest Record(LoadedFiles loadedFiles, string buildKey, StartupPrefetchOptions options, PrefetchTestHooks hooks, IReadOnlyCollection<string> manifestPaths)
    {
        var candidates = new Dictionary<string, Candidate>(StringComparer.Ordinal);
        foreach (string file in options.AdditionalFiles)
        {
            Add(candidates, Path.GetFullPath(file), Additional).AddWhole();
        }

        List<string> sharedObjects = [];
        if (OperatingSystem.IsLinux())
        {
            sharedObjects = SharedObjectsInLoadOrderLinux(AddMappedFilesLinux(candidates));
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

        PlaceInFirstUseOrder(candidates, sharedObjects);
        return Build(buildKey, candidates, options, hooks, manifestPaths);
    }

    /// <summary>
    /// Numbers the candidates in the order the start first used them, as far as that is known: the executable and the
    /// libraries the dynamic linker loaded with it (<paramref name="sharedObjectsInLoadOrder"/>, Linux, up to the host's
    /// first), the host and the runtime's core by name (the host's JSON files between them), the other shared
    /// libraries in the order they were loaded (ICU, OpenSSL's shim), the assemblies in the order the runtime loaded
    /// them, then the files FastLoad read, by path (they finish in no fixed order, and the manifest of a start recorded
    /// twice should be the same). The others (the options' additional files; off Linux, native libraries) have no
    /// place; the replay reads them last.
    /// </summary>
    private static void PlaceInFirstUseOrder(Dictionary<string, Candidate> candidates, List<string> sharedObjectsInLoadOrder)
    {
        var byPath = new List<Candidate>(candidates.Values);
        byPath.Sort(static (a, b) => ManifestFormat.ComparePaths(a.Utf8Path, b.Utf8Path));
        int next = 0;
        foreach (string file in sharedObjectsInLoadOrder)
        {
            string name = Path.GetFileName(file);
            if (Array.IndexOf(HostLibraries, name) >= 0 || Array.IndexOf(RuntimeCoreInLoadOrder, name) >= 0)
            {
                break;
            }

            PlaceFile(candidates, file, ref next);
        }

        PlaceByName(byPath, HostExecutables, ref next);
        PlaceByName(byPath, HostLibraries, ref next);
        foreach (Candidate candidate in byPath)
        {
            if (candidate.Priority == HostRead)
            {
                Place(candidate, ref next);
            }
        }

        PlaceByName(byPath, RuntimeCoreInLoadOrder, ref next);
        foreach (string file in sharedObjectsInLoadOrder)
        {
            PlaceFile(candidates, file, ref next);
        }

        foreach (string assembly in LoadedAssembliesInLoadOrder())
        {
            PlaceFile(candidates, assembly, ref next);
        }

        foreach (Candidate candidate in byPath)
        {
            if (candidate.Priority == Loaded)
            {
                Place(candidate, ref next);
            }
        }
    }

    private static void PlaceByName(List<Candidate> byPath, string[] namesInOrder, ref int next)
    {
        foreach (string name in namesInOrder)
        {
            foreach (Candidate candidate in byPath)
            {
                if (Path.GetFileName(candidate.Path) == name)
                {
                    Place(candidate, ref next);
                }
            }
        }
    }

    private static void PlaceFile(Dictionary<string, Candidate> candidates, string path, ref int next)
    {
        if (candidates.TryGetValue(path, out Candidate? candidate))
        {
            Place(candidate, ref next);
        }
    }

    private static void Place(Candidate candidate, ref int next)
    {
        if (candidate.FirstUse == 0)
        {
            candidate.FirstUse = ++next;
        }
    }

    /// <summary>The files of the assemblies loaded so far, in the order the runtime loaded them (the order it lists them in).</summary>
    [UnconditionalSuppressMessage("SingleFile", "IL3000", Justification = "An assembly without a file (single-file, NativeAOT) has an empty Location and is skipped.")]
    private static List<string> LoadedAssembliesInLoadOrder()
    {
        var files = new List<string>();
        foreach (Assembly assembly in AppDomain.CurrentDomain.GetAssemblies())
        {
            if (!assembly.IsDynamic && assembly.Location is { Length: > 0 } location)
            {
                files.Add(Path.GetFullPath(location));
            }
        }

        return files;
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
                (candidate.Version, candidate.KeptRanges) = (version, ranges);
                kept.Add(candidate);
            }
        }

        // The places of the files kept, numbered again from 1 without gaps; then the files in path order.
        kept.Sort(static (a, b) => a.FirstUse.CompareTo(b.FirstUse));
        int place = 0;
        foreach (Candidate candidate in kept)
        {
            candidate.FirstUse = candidate.FirstUse > 0 ? ++place : 0;
        }

        kept.Sort(static (a, b) => ManifestFormat.ComparePaths(a.Utf8Path, b.Utf8Path));
        var files = new StartupManifestFile[kept.Count];
        for (int i = 0; i < files.Length; i++)
        {
            Candidate candidate = kept[i];
            files[i] = new StartupManifestFile(
                candidate.Path, candidate.Version.Length, candidate.Version.LastWriteUnixNanoseconds, candidate.KeptRanges!, candidate.FirstUse);
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

        /// <summary>The candidate's place in the order of first use, from 1; 0 where it is not known.</summary>
        public int FirstUse { get; set; }

        public RangeSet Ranges { get; } = new();

        /// <summary>The path as the manifest orders it, encoded once rather than at every comparison of the sorts.</summary>
        public byte[] Utf8Path => field ??= Encoding.UTF8.GetBytes(Path);

        /// <summary>The version of the file and its ranges, once it is kept.</summary>
        public FileVersion Version { get; set; }

        public StartupManifestRange[]? KeptRanges { get; set; }
    }
}
