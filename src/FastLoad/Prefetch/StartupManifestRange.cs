namespace FastLoad;

/// <summary>A range of bytes of a file that a start read: from <see cref="Offset"/>, <see cref="Length"/> bytes.</summary>
/// <param name="Offset">Where the range starts in the file.</param>
/// <param name="Length">How many bytes it holds; more than 0.</param>
public readonly record struct StartupManifestRange(long Offset, long Length)
{
    /// <summary>Gets the offset just past the range.</summary>
    public long End => Offset + Length;
}
