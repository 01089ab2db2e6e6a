using System.Diagnostics;

namespace FastLoad;

/// <summary>One file stored in a pack, as its index describes it.</summary>
[DebuggerDisplay("{Name,nq} ({Length} bytes)")]
public sealed class PackEntry
{
    internal PackEntry(string name, int index, long dataOffset, long length, ulong contentHash)
    {
        Name = name;
        Index = index;
        DataOffset = dataOffset;
        Length = length;
        ContentHash = contentHash;
    }

    /// <summary>Gets the entry's name: its path relative to the packed folder, with <c>/</c> between segments.</summary>
    public string Name { get; }

    /// <summary>Gets the position of the entry in the pack, counting from 0; entries are in the order they were packed.</summary>
    public int Index { get; }

    /// <summary>Gets the entry's length in bytes, uncompressed.</summary>
    public long Length { get; }

    /// <summary>Gets the XXH64 hash (seed 0) of the entry's contents, checked whenever the entry is read.</summary>
    public ulong ContentHash { get; }

    /// <summary>Where the entry starts in the uncompressed data of the pack (all entries back to back).</summary>
    internal long DataOffset { get; }

    /// <inheritdoc />
    public override string ToString() => $"{Name} ({Length} bytes)";
}
