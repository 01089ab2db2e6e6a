using System.Text;

namespace FastLoad.Prefetch;

/// <summary>
/// Where a start's manifest lives: the places looked at, in order (beside the application, then a per-user cache
/// folder, unless <see cref="StartupPrefetchOptions.ManifestPath"/> names one), and how one is written.
/// </summary>
internal sealed class ManifestLocation
{
    public const string Extension = ".startup-manifest";

    private ManifestLocation(IReadOnlyList<string> candidates) => Candidates = candidates;

    /// <summary>The full paths looked at, in order: the first holding a manifest of this build is replayed.</summary>
    public IReadOnlyList<string> Candidates { get; }

    public static ManifestLocation For(string? manifestPath, PrefetchTestHooks hooks)
    {
        if (manifestPath is not null)
        {
            return new ManifestLocation([Path.GetFullPath(manifestPath)]);
        }

        string appDirectory = Path.GetFullPath(hooks.AppDirectory ?? AppContext.BaseDirectory);
        string appName = FileNameOf(hooks.AppName ?? ApplicationName());
        var candidates = new List<string>(2) { Path.Combine(appDirectory, appName + Extension) };
        if ((hooks.CacheDirectory ?? UserCacheDirectory()) is { Length: > 0 } cache)
        {
            // Applications of one name in different folders get different files.
            uint folderHash = ManifestChecksum.Compute(Encoding.UTF8.GetBytes(appDirectory));
            candidates.Add(Path.Combine(Path.GetFullPath(cache), $"{appName}-{folderHash:x8}{Extension}"));
        }

        return new ManifestLocation(candidates);
    }

    /// <summary>
    /// Writes <paramref name="bytes"/> to the first place that takes them, trying <paramref name="preferred"/> (where
    /// the last manifest was found) first; a place that already holds these bytes is left as it is.
    /// </summary>
    /// <returns>The path the manifest is at, and whether it was written; <see langword="null"/> with the errors when no place took it.</returns>
    public (string? Path, bool Written, List<Exception> Errors) Write(byte[] bytes, string? preferred)
    {
        var errors = new List<Exception>();
        foreach (string path in preferred is null ? Candidates : Candidates.Where(path => path != preferred).Prepend(preferred))
        {
            try
            {
                if (HoldsAlready(path, bytes))
                {
                    return (path, false, errors);
                }

                WriteAtomically(path, bytes);
                return (path, true, errors);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                errors.Add(ex); // A read-only application folder: the next place.
            }
        }

        return (null, false, errors);
    }

    /// <summary>The per-user cache folder for manifests, or <see langword="null"/> where the user has none (no home folder).</summary>
    internal static string? UserCacheDirectory()
    {
        if (OperatingSystem.IsWindows())
        {
            string local = Environment.GetFolderPath(Environment.SpecialFolder.LocalApplicationData);
            return local.Length == 0 ? null : Path.Combine(local, "FastLoad", "startup");
        }

        string? home = Environment.GetEnvironmentVariable("HOME");
        if (OperatingSystem.IsMacOS())
        {
            return string.IsNullOrEmpty(home) ? null : Path.Combine(home, "Library", "Caches", "FastLoad", "startup");
        }

        // XDG base directories: a relative $XDG_CACHE_HOME is invalid and ignored.
        string? xdg = Environment.GetEnvironmentVariable("XDG_CACHE_HOME");
        if (!string.IsNullOrEmpty(xdg) && Path.IsPathFullyQualified(xdg))
        {
            return Path.Combine(xdg, "fastload", "startup");
        }

        return string.IsNullOrEmpty(home) ? null : Path.Combine(home, ".cache", "fastload", "startup");
    }

    private static string ApplicationName() => Path.GetFileNameWithoutExtension(BuildKey.EntryPath()) ?? "app";

    /// <summary>A name safe in a file name on every platform: anything else becomes '_'.</summary>
    private static string FileNameOf(string name)
    {
        var safe = new StringBuilder(name.Length);
        foreach (char c in name)
        {
            safe.Append(char.IsAsciiLetterOrDigit(c) || c is '.' or '-' or '_' ? c : '_');
        }

        return safe.Length == 0 ? "app" : safe.ToString();
    }

    private static bool HoldsAlready(string path, byte[] bytes)
    {
        try
        {
            var info = new FileInfo(path);
            return info.Exists && info.Length == bytes.Length && File.ReadAllBytes(path).AsSpan().SequenceEqual(bytes);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return false;
        }
    }

    /// <summary>
    /// Beside the target, then renamed over it: a start that reads the manifest meanwhile sees the old one or the new
    /// one, never half of one. Not flushed: a manifest torn by a power cut fails its checksum and is rewritten.
    /// </summary>
    private static void WriteAtomically(string path, byte[] bytes)
    {
        string directory = Path.GetDirectoryName(path)!;
        Directory.CreateDirectory(directory);
        string temporary = Path.Combine(directory, $".{Path.GetFileName(path)}.{Environment.ProcessId}.{Environment.CurrentManagedThreadId}.tmp");
        try
        {
            File.WriteAllBytes(temporary, bytes);
            File.Move(temporary, path, overwrite: true);
        }
        catch
        {
            TryDelete(temporary);
            throw;
        }
    }

    private static void TryDelete(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
        }
    }
}
