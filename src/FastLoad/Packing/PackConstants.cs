namespace FastLoad;

/// <summary>The defaults and limits of <see cref="PackOptions"/>.</summary>
internal static class PackConstants
{
    public const int MinBlockSize = 4 * 1024;

    /// <summary>Blocks are decoded whole into one buffer; 64 MiB keeps that well inside any budget.</summary>
    public const int MaxBlockSize = 64 * 1024 * 1024;

    /// <summary>1 MiB: large sequential reads (seed 002) and enough blocks to decode a pack of a few MiB on all cores.</summary>
    public const int DefaultBlockSize = 1024 * 1024;

    public const int MinAcceleration = 1;

    /// <summary>The reference implementation's own ceiling (<c>LZ4_ACCELERATION_MAX</c>).</summary>
    public const int MaxAcceleration = 65537;

    public const int DefaultAcceleration = 1;

    public const int MinRawThresholdPercent = 1;

    public const int MaxRawThresholdPercent = 100;

    /// <summary>A block that keeps more than 90% of its size is stored raw: decoding it would cost more than the read saves.</summary>
    public const int DefaultRawThresholdPercent = 90;
}
