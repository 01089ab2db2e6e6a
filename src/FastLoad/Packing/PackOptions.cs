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

    /// <summary>Gets or sets the LZ4 acceleration: 1 searches hardest (as <c>LZ4_compress_default</c>), larger values compress faster and less.</summary>
    /// <value>The default value is 1; from 1 to 65537.</value>
    [Range(PackConstants.MinAcceleration, PackConstants.MaxAcceleration)]
    public int Acceleration { get; set; } = PackConstants.DefaultAcceleration;

    /// <summary>Gets or sets the largest compressed size, in percent of the block, that is still stored compressed; a block that compresses less is stored raw.</summary>
    /// <value>The default value is 90 (a block must shrink by at least 10%); from 1 to 100.</value>
    [Range(PackConstants.MinRawThresholdPercent, PackConstants.MaxRawThresholdPercent)]
    public int RawThresholdPercent { get; set; } = PackConstants.DefaultRawThresholdPercent;
}
