using FastLoad.Prefetch;

namespace FastLoad;

/// <summary>
/// What a start of an application read from disk: the files and byte ranges that <see cref="StartupPrefetch"/> replays
/// into the page cache at the next start, keyed to the application's build. The format is described in
/// docs/startup-manifest.md; files are in ordinal order of their paths, so one start recorded twice gives the same bytes.
/// </summary>
public sealed class StartupManifest
{
    internal StartupManifest(string buildKey, StartupManifestFile[] files)
    {
        BuildKey = buildKey;
        FileArray = files;
        foreach (StartupManifestFile file in files)
        {
            RangeCount += file.RangeArray.Length;
            ByteCount += file.ByteCount;
        }
    }

    /// <summary>Gets the build of the application that recorded the manifest (<see cref="StartupPrefetchOptions.BuildKey"/>).</summary>
    public string BuildKey { get; }

    /// <summary>Gets the files, in ordinal order of their paths.</summary>
    public IReadOnlyList<StartupManifestFile> Files => field ??= Array.AsReadOnly(FileArray);

    /// <summary>Gets the number of ranges of all the files.</summary>
    public int RangeCount { get; }

    /// <summary>Gets the bytes of all the ranges: what a replay reads when nothing is cached.</summary>
    public long ByteCount { get; }

    /// <summary><see cref="Files"/> as the array it is.</summary>
    internal StartupManifestFile[] FileArray { get; }

    /// <summary>Reads and checks a manifest.</summary>
    /// <param name="path">The manifest file.</param>
    /// <returns>The manifest.</returns>
    /// <exception cref="ArgumentException"><paramref name="path"/> is <see langword="null"/> or empty.</exception>
    /// <exception cref="FileNotFoundException">There is no file at <paramref name="path"/>.</exception>
    /// <exception cref="InvalidDataException">The file is not a valid manifest; the message says what is wrong, and where.</exception>
    /// <exception cref="IOException">The file cannot be read.</exception>
    /// <exception cref="UnauthorizedAccessException">The file cannot be opened for reading.</exception>
    public static StartupManifest Read(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        return ManifestFormat.Parse(ManifestFormat.ReadBytes(path), path);
    }
}
