using System.Buffers.Binary;
using System.Security.Cryptography;
using FastLoad.Packing;

namespace FastLoad.Tests.Packing;

/// <summary>
/// Packs written by earlier code still open and verify. Fixtures/v1-2026-11-24.fpk was written by the managed LZ4
/// codec FastLoad had before K4os (<c>fastload pack --block-size 4096</c> of five files: text and JSON in LZ4 blocks,
/// noise in raw blocks, an empty and a one-byte file).
/// </summary>
public sealed class PackCompatibilityTests : PackTestBase
{
    private static readonly string Fixture = Path.Combine(AppContext.BaseDirectory, "Packing", "Fixtures", "v1-2026-11-24.fpk");

    /// <summary>SHA-256 of each entry, taken from the files that were packed.</summary>
    private static readonly Dictionary<string, string> Expected = new(StringComparer.Ordinal)
    {
        ["config/app.json"] = "50c72ec8f8cf0f3df7a011dc7562a6369e70f4604ccbab62e94554afbc96c6e7",
        ["config/empty.json"] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ["readme.txt"] = "f01d3d6cf0f49a50355ec44f378179c31dff79fd37e30b23cf8bb82575cce2bf",
        ["textures/noise.bin"] = "efa1feb29402bba617264f27b727fab60e9f1b1c6d95134b05a35b292e378d2e",
        ["textures/one.bin"] = "ca358758f6d27e6cf45272937977a748fd88391db679ceda7dc7bf1f005ee879",
    };

    [Fact]
    public void Fixture_HoldsLz4AndRawBlocks()
    {
        byte[] pack = File.ReadAllBytes(Fixture);
        (int offset, int length) = Footer(pack);
        ReadOnlySpan<byte> index = pack.AsSpan(offset, length);
        var codecs = new HashSet<byte>();
        for (int b = 0; b < BlockCount(index); b++)
        {
            codecs.Add(index[PackFormat.IndexHeaderSize + (b * PackFormat.BlockRecordSizeWithoutHash) + 16]);
        }

        Assert.Equal([PackFormat.CodecRaw, PackFormat.CodecLz4], codecs.Order());
    }

    [Fact]
    public async Task LoadAllAsync_PackFromBeforeK4os_ReturnsTheSameBytes()
    {
        Dictionary<string, byte[]> loaded = await LoadAllAsync(Fixture);

        Assert.Equal(Expected.Keys.Order(StringComparer.Ordinal), loaded.Keys.Order(StringComparer.Ordinal));
        foreach ((string name, byte[] data) in loaded)
        {
            Assert.Equal(Expected[name], Convert.ToHexStringLower(SHA256.HashData(data)));
        }
    }

    [Fact]
    public async Task ReadEntryAsync_PackFromBeforeK4os_ReturnsTheSameBytes()
    {
        await using PackReader reader = await PackReader.OpenAsync(Fixture);
        foreach ((string name, string hash) in Expected)
        {
            ReadOnlyMemory<byte> data = await reader.ReadEntryAsync(name);
            Assert.Equal(hash, Convert.ToHexStringLower(SHA256.HashData(data.Span)));
        }
    }

    [Fact]
    public async Task ExtractAsync_PackFromBeforeK4os_WritesTheSameFiles()
    {
        string target = Path.Combine(Root, "out");
        await using (PackReader reader = await PackReader.OpenAsync(Fixture))
        {
            await reader.ExtractAsync(target);
        }

        foreach ((string name, string hash) in Expected)
        {
            Assert.Equal(hash, Convert.ToHexStringLower(SHA256.HashData(await File.ReadAllBytesAsync(Path.Combine(target, name)))));
        }
    }

    [Fact]
    public async Task CreateAsync_SameFilesAsFixture_ReadsBackAndHashesAgree()
    {
        byte[] fixture = await File.ReadAllBytesAsync(Fixture);
        string source = Path.Combine(Root, "again");
        await using (PackReader reader = await PackReader.OpenAsync(Fixture))
        {
            await reader.ExtractAsync(source);
        }

        await PackWriter.CreateAsync(PackPath, source, new PackOptions { BlockSize = SmallBlock });

        // Same entries and content hashes as the old writer stored; only the LZ4 bytes may differ.
        await using PackReader old = await PackReader.OpenAsync(Fixture);
        await using PackReader repacked = await PackReader.OpenAsync(PackPath);
        Assert.Equal(old.Entries.Select(e => (e.Name, e.Length, e.ContentHash)), repacked.Entries.Select(e => (e.Name, e.Length, e.ContentHash)));
        byte[] header = (await File.ReadAllBytesAsync(PackPath))[..PackFormat.HeaderSize];
        Assert.Equal(fixture.AsSpan(0, 8).ToArray(), header[..8]);
        Assert.Equal(PackFormat.VersionWithoutBlockHashes, BinaryPrimitives.ReadUInt16LittleEndian(fixture.AsSpan(8)));
        Assert.Equal(PackFormat.Version, BinaryPrimitives.ReadUInt16LittleEndian(header.AsSpan(8)));
    }

    /// <summary>A pack without block hashes still has every entry checked against its hash, as when it was written.</summary>
    [Fact]
    public async Task LoadAllAsync_PackFromBeforeBlockHashesDamagedInARawBlock_ThrowsNamingTheEntry()
    {
        byte[] pack = File.ReadAllBytes(Fixture);
        (int offset, int length) = Footer(pack);
        byte[] index = pack[offset..(offset + length)];
        int raw = Enumerable.Range(0, BlockCount(index))
            .First(b => index[PackFormat.IndexHeaderSize + (b * PackFormat.BlockRecordSizeWithoutHash) + 16] == PackFormat.CodecRaw);
        long blockOffset = BinaryPrimitives.ReadInt64LittleEndian(index.AsSpan(PackFormat.IndexHeaderSize + (raw * PackFormat.BlockRecordSizeWithoutHash)));
        pack[blockOffset + 10] ^= 0x01;

        InvalidDataException error = await OpenAndLoadFailsAsync(pack);

        Assert.Matches("entry [0-9]+ '[^']+': its contents do not match its hash", error.Message);
    }
}
