namespace FastLoad;

/// <summary>The defaults and limits of <see cref="PackOptions"/>.</summary>
internal static class PackConstants
{
    public const int MinBlockSize = 4 * 1024;

    /// <summary>Blocks are decoded whole into one buffer; 64 MiB keeps that well inside any budget.</summary>
    public const int MaxBlockSize = 64 * 1024 * 1024;

    /// <summary>1 MiB: large sequential reads, and enough blocks to decode a pack of a few MiB on all cores.</summary>
    public const int DefaultBlockSize = 1024 * 1024;

    /// <summary>LZ4's own scale (as <c>lz4 -0</c> .. <c>-12</c>, K4os <c>LZ4Level</c>): 0-2 fast, 3-9 HC, 10-12 optimal parsing.</summary>
    public const int MinLevel = 0;

    public const int MaxLevel = 12;

    /// <summary>LZ4's first high-compression (HC) level; the levels below it are the fast one.</summary>
    public const int FirstHighCompressionLevel = 3;

    /// <summary>
    /// A pack is built once and loaded at every start: at the first HC level a pack of text is about a quarter smaller
    /// than at the fast one and decodes faster (fewer, longer matches), for packing a few times slower
    /// (docs/measurements/pack-levels.md).
    /// </summary>
    public const int DefaultLevel = FirstHighCompressionLevel;

    public const int MinRawThresholdPercent = 1;

    public const int MaxRawThresholdPercent = 100;

    /// <summary>A block that keeps more than 90% of its size is stored raw: decoding it would cost more than the read saves.</summary>
    public const int DefaultRawThresholdPercent = 90;
}
