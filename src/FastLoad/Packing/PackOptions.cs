using System.ComponentModel.DataAnnotations;

namespace FastLoad;

/// <summary>Options of <see cref="PackWriter"/>: how a pack's data is cut into blocks and compressed.</summary>
public sealed class PackOptions
{
    /// <summary>Gets or sets the uncompressed size of each data block, the unit that is compressed, read and decoded alone.</summary>
    /// <value>The default value is 1 MiB (1,048,576 bytes); from 4 KiB to 64 MiB.</value>
    /// <remarks>Larger blocks compress a little better and mean fewer, larger reads; reading one entry decodes every block it touches.</remarks>
    [Range(PackConstants.MinBlockSize, PackConstants.MaxBlockSize)]
    public int BlockSize { get; set; } = PackConstants.DefaultBlockSize;

    /// <summary>
    /// Gets or sets the LZ4 compression level, on LZ4's own scale: 0 to 2 fast, 3 to 9 high compression (HC), 10 to 12
    /// HC with optimal parsing.
    /// </summary>
    /// <value>The default value is 3 (the first HC level); from 0 to 12.</value>
    /// <remarks>
    /// Higher levels make smaller packs, packed more slowly. A pack is built once and loaded many times, so the default
    /// trades packing speed for loading: at level 3 a pack of text is about a quarter smaller than at level 0 and loads
    /// faster warm (cold, as fast or faster). Level 0 packs three to five times as fast; levels above 3 pack two to
    /// five times more slowly for a few percent more (docs/measurements/pack-levels.md measures each level). A block
    /// that level 0 cannot compress enough to keep (<see cref="RawThresholdPercent"/>) is stored raw without trying a
    /// higher level.
    /// </remarks>
    [Range(PackConstants.MinLevel, PackConstants.MaxLevel)]
    public int Level { get; set; } = PackConstants.DefaultLevel;

    /// <summary>
    /// Gets or sets the largest compressed size, in percent of the block, that is still stored compressed; a block that
    /// compresses less is stored raw.
    /// </summary>
    /// <value>The default value is 90 (a block must shrink by at least 10%); from 1 to 100.</value>
    [Range(PackConstants.MinRawThresholdPercent, PackConstants.MaxRawThresholdPercent)]
    public int RawThresholdPercent { get; set; } = PackConstants.DefaultRawThresholdPercent;

    /// <summary>
    /// Gets or sets whether a file of the set that is not a regular file (a FIFO, socket or device, a symbolic link to
    /// nothing or to a folder) is left out of the pack, listed in <see cref="PackSummary.Skipped"/>, rather than failing it.
    /// </summary>
    /// <value>
    /// The default value is <see langword="false"/>: such a file fails the pack with an <see cref="IOException"/> that
    /// names it, what it is and this option, and the pack is not written.
    /// </value>
    /// <remarks>
    /// A pack holds the bytes of regular files only, so it cannot keep such an entry as tar keeps a link or a FIFO. Failing
    /// is the default because a pack is a build's output: a dangling link there is more often a step that did not run
    /// than a file to lose quietly.
    /// </remarks>
    public bool SkipSpecialFiles { get; set; }

    /// <summary>A copy taken when a reader or writer starts, so that later changes to these options do not reach it.</summary>
    internal PackOptions Clone() => (PackOptions)MemberwiseClone();
}
