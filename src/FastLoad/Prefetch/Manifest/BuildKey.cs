using System.Reflection;
using FastLoad.FileSystem;

namespace FastLoad.Prefetch;

/// <summary>What identifies the running build of the application, when <see cref="StartupPrefetchOptions.BuildKey"/> does not say.</summary>
internal static class BuildKey
{
    /// <summary>
    /// The entry assembly's name and module version id (a new one per compilation; the same for a deterministic build of
    /// the same sources, which is the same build); failing that, the executable's name, length and last write time.
    /// </summary>
    public static string OfThisProcess()
    {
        Assembly? entry = Assembly.GetEntryAssembly();
        if (entry is not null)
        {
            try
            {
                Guid version = entry.ManifestModule.ModuleVersionId;
                if (version != Guid.Empty)
                {
                    return $"{entry.GetName().Name} {version:N}";
                }
            }
            catch (Exception ex) when (ex is NotSupportedException or InvalidOperationException)
            {
                // NativeAOT keeps no module version id for some builds: the executable below stands for the build.
            }
        }

        if (Environment.ProcessPath is { } executable)
        {
            try
            {
                FileVersion version = FileVersion.Get(executable);
                return $"{Path.GetFileName(executable)} {version.Length} {version.LastWriteUnixNanoseconds}";
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
            }
        }

        return "unknown build";
    }
}
