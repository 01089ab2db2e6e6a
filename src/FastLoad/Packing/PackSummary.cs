namespace FastLoad;

/// <summary>What <see cref="PackWriter"/> wrote into a pack, and what it left out.</summary>
public sealed class PackSummary
{
    internal PackSummary(int entryCount, long dataLength, IReadOnlyList<LoadFailure> skipped)
    {
        EntryCount = entryCount;
        DataLength = dataLength;
        Skipped = skipped;
    }

    /// <summary>Gets the number of entries in the pack.</summary>
    public int EntryCount { get; }

    /// <summary>Gets the bytes of the entries, uncompressed.</summary>
    public long DataLength { get; }

    /// <summary>
    /// Gets the files of the set that are not regular files and were left out, each with what it is, in the set's order;
    /// empty unless <see cref="PackOptions.SkipSpecialFiles"/> is set.
    /// </summary>
    public IReadOnlyList<LoadFailure> Skipped { get; }
}
