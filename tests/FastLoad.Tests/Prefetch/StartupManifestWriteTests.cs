using System.Runtime.Versioning;
using FastLoad.Prefetch;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Prefetch;

/// <summary>How a manifest is written: never through a link another user planted, owner-only, no temporary files left.</summary>
[SupportedOSPlatform("linux")]
public sealed class StartupManifestWriteTests : PrefetchTestBase
{
    private static readonly byte[] ManifestBytes = ManifestFormat.Write(new StartupManifest(Build, []));

    [LinuxFact]
    public void Write_LinksPlantedAtPredictableTemporaryNames_TheirTargetsAreNotOverwritten()
    {
        string victim = Path.Combine(Root, "victim");
        File.WriteAllText(victim, "precious");
        string manifest = Path.Combine(AppDirectory, "testapp.startup-manifest");

        // Every name a writer of this process could pick from its id and a thread's.
        for (int thread = 1; thread <= 512; thread++)
        {
            File.CreateSymbolicLink(Path.Combine(AppDirectory, $".testapp.startup-manifest.{Environment.ProcessId}.{thread}.tmp"), victim);
        }

        (string? path, bool written, _) = ManifestLocation.For(manifest, PrefetchTestHooks.None).Write(ManifestBytes, preferred: null);

        Assert.Equal(manifest, path);
        Assert.True(written);
        Assert.Equal("precious", File.ReadAllText(victim));
        Assert.Null(new FileInfo(manifest).LinkTarget);
        Assert.Equal(ManifestBytes, File.ReadAllBytes(manifest));
    }

    [LinuxFact]
    public void Write_ManifestAndTheFolderItCreates_AreOwnerOnly()
    {
        string folder = Path.Combine(Root, "cache", "fastload", "startup");
        string manifest = Path.Combine(folder, "testapp.startup-manifest");

        ManifestLocation.For(manifest, PrefetchTestHooks.None).Write(ManifestBytes, preferred: null);

        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(manifest));
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute, File.GetUnixFileMode(folder));
    }

    [LinuxFact]
    public void Write_StaleTemporaryFilesOfTheManifest_AreRemoved()
    {
        string manifest = Path.Combine(AppDirectory, "testapp.startup-manifest");
        string stale = Path.Combine(AppDirectory, ".testapp.startup-manifest.1234.1.tmp");
        string fresh = Path.Combine(AppDirectory, ".testapp.startup-manifest.0123456789abcdef.tmp");
        string other = Path.Combine(AppDirectory, ".other.startup-manifest.1234.1.tmp");
        foreach (string file in new[] { stale, fresh, other })
        {
            File.WriteAllText(file, "left behind");
        }

        File.SetLastWriteTimeUtc(stale, DateTime.UtcNow.AddHours(-1));
        File.SetLastWriteTimeUtc(other, DateTime.UtcNow.AddHours(-1));

        ManifestLocation.For(manifest, PrefetchTestHooks.None).Write(ManifestBytes, preferred: null);

        // One being written by another process right now is left alone; another manifest's too.
        Assert.False(File.Exists(stale));
        Assert.True(File.Exists(fresh));
        Assert.True(File.Exists(other));
        Assert.Equal([".other.startup-manifest.1234.1.tmp", ".testapp.startup-manifest.0123456789abcdef.tmp", "testapp.startup-manifest"],
            Directory.GetFileSystemEntries(AppDirectory).Select(Path.GetFileName).Order(StringComparer.Ordinal));
    }
}
