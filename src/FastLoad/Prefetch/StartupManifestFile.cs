using System.Diagnostics;

namespace FastLoad;

/// <summary>One file of a <see cref="StartupManifest"/>: which version of it was read, and which of its bytes.</summary>
[DebuggerDisplay("{Path,nq} ({ByteCount} of {Length} bytes)")]
public sealed class StartupManifestFile
{
    internal StartupManifestFile(string path, long length, long lastWriteUnixNanoseconds, StartupManifestRange[] ranges, int firstUse = 0)
    {
        Path = path;
        Length = length;
        LastWriteUnixNanoseconds = lastWriteUnixNanoseconds;
        RangeArray = ranges;
        FirstUse = firstUse;
        foreach (StartupManifestRange range in ranges)
        {
            ByteCount += range.Length;
        }
    }

    /// <summary>Gets the file's full path.</summary>
    public string Path { get; }

    /// <summary>Gets the file's length when the start was recorded; the replay skips the file if it has changed.</summary>
    public long Length { get; }

    /// <summary>Gets when the file was last written, as recorded; the replay skips the file if it has changed.</summary>
    public DateTime LastWriteTimeUtc => DateTime.UnixEpoch.AddTicks(LastWriteUnixNanoseconds / 100);

    /// <summary>Gets the ranges of the file that the start read, in order, none overlapping or touching another.</summary>
    public IReadOnlyList<StartupManifestRange> Ranges => field ??= Array.AsReadOnly(RangeArray);

    /// <summary>
    /// Gets the file's place in the order the recorded start first used its files, from 1 (the replay reads in this
    /// order); 0 for a file whose place the recorder could not tell, which the replay reads after the others.
    /// </summary>
    public int FirstUse { get; }

    /// <summary>Gets the bytes of <see cref="Ranges"/>.</summary>
    public long ByteCount { get; }

    /// <summary>The last write time in nanoseconds since 1970 (UTC), as the manifest stores it.</summary>
    internal long LastWriteUnixNanoseconds { get; }

    /// <summary>
    /// <see cref="Ranges"/> as the array it is: walked directly, it needs no interface code for a struct, which the
    /// runtime would compile at the start it is warming.
    /// </summary>
    internal StartupManifestRange[] RangeArray { get; }

    /// <inheritdoc />
    public override string ToString() => $"{Path} ({ByteCount} of {Length} bytes)";
}
