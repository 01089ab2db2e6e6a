using System.Security.Cryptography;
using System.Text;

namespace FastLoad.Prefetch;

/// <summary>
/// Where a start's manifest lives: the places looked at, in order (beside the application, then a per-user cache
/// folder, unless <see cref="StartupPrefetchOptions.ManifestPath"/> names one), and how one is written.
/// </summary>
internal sealed class ManifestLocation
{
    public const string Extension = ".startup-manifest";

    private const string TemporarySuffix = ".tmp";

    /// <summary>How long a temporary file may sit before it is taken for one a killed process left behind.</summary>
    private static readonly TimeSpan StaleTemporaryAge = TimeSpan.FromMinutes(10);

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
    /// Beside the target under an unguessable name, created so that it cannot be a link or another's file (an existing
    /// entry of that name fails the create), flushed, then renamed over the target: a start that reads the manifest
    /// meanwhile sees the old one or the new one, never half of one, and whoever can create entries in the folder
    /// cannot make the application write through a link it planted.
    /// </summary>
    private static void WriteAtomically(string path, byte[] bytes)
    {
        string directory = Path.GetDirectoryName(path)!;
        CreatePrivateDirectory(directory);
        RemoveStaleTemporaryFiles(directory, Path.GetFileName(path));
        string temporary = Path.Combine(directory, TemporaryPrefix(Path.GetFileName(path)) + Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(16)) + TemporarySuffix);
        try
        {
            var options = new FileStreamOptions { Mode = FileMode.CreateNew, Access = FileAccess.Write, Share = FileShare.None };
            if (!OperatingSystem.IsWindows())
            {
                options.UnixCreateMode = UnixFileMode.UserRead | UnixFileMode.UserWrite;
            }

            // CreateNew is O_CREAT|O_EXCL (CREATE_NEW on Windows): it fails on any existing entry, a dangling link included.
            using (var stream = new FileStream(temporary, options))
            {
                stream.Write(bytes);
                stream.Flush(flushToDisk: true);
            }

            File.Move(temporary, path, overwrite: true);
        }
        catch
        {
            TryDelete(temporary);
            throw;
        }
    }

    private static string TemporaryPrefix(string fileName) => "." + fileName + ".";

    /// <summary>Created owner-only where missing: the manifest names the files the application reads.</summary>
    private static void CreatePrivateDirectory(string directory)
    {
        if (OperatingSystem.IsWindows())
        {
            Directory.CreateDirectory(directory);
        }
        else if (!Directory.Exists(directory))
        {
            Directory.CreateDirectory(directory, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        }
    }

    /// <summary>Removes temporary files of this manifest that a process killed while writing left behind.</summary>
    private static void RemoveStaleTemporaryFiles(string directory, string fileName)
    {
        try
        {
            DateTime before = DateTime.UtcNow - StaleTemporaryAge;
            foreach (string temporary in Directory.EnumerateFiles(directory, TemporaryPrefix(fileName) + "*" + TemporarySuffix))
            {
                // A link is removed, never followed: File.Delete unlinks the entry itself.
                var info = new FileInfo(temporary);
                if (info.LinkTarget is not null || info.LastWriteTimeUtc < before)
                {
                    TryDelete(temporary);
                }
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // Cleaning up is a courtesy: the manifest is written anyway.
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
