using FastLoad.FileSystem;

namespace FastLoad.Prefetch;

/// <summary>
/// What identifies the running build of the application, when <see cref="StartupPrefetchOptions.BuildKey"/> does not
/// say: its entry file's name, length and last write time, which every build of it changes, read with one <c>statx</c>
/// on the start's thread.
/// </summary>
internal static class BuildKey
{
    // Found once: a start needs it twice (its build key and its manifest's name), and finding it costs a stat.
    private static string? s_entryPath;

    public static string OfThisProcess()
    {
        if (EntryPath() is { } entry)
        {
            try
            {
                FileVersion version = FileVersion.Get(entry);
                return $"{Path.GetFileName(entry)} {version.Length} {version.LastWriteUnixNanoseconds}";
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
            }
        }

        return "unknown build";
    }

    /// <summary>
    /// The entry assembly (<c>app.dll</c>, whether started by <c>dotnet app.dll</c> or the app host), or the executable of
    /// a single-file or NativeAOT application; <see langword="null"/> where neither is known.
    /// </summary>
    public static string? EntryPath() => s_entryPath ??= FindEntryPath();

    private static string? FindEntryPath()
    {
        // The host passes the entry assembly's full path as the first argument; a native executable gets argv[0] as typed.
        string[] arguments = Environment.GetCommandLineArgs();
        if (arguments.Length > 0 && Path.IsPathFullyQualified(arguments[0]) && File.Exists(arguments[0]))
        {
            return arguments[0];
        }

        return Environment.ProcessPath;
    }
}
