using System.Buffers.Binary;
using System.Text;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Packing;

/// <summary>
/// A pack's header, footer and index, read and checked before anything else: every offset, length and count is
/// checked against the file and against each other before it is used (docs/pack-format.md, "Validation").
/// </summary>
internal sealed class PackIndex
{
    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    private PackIndex(ushort version, int blockSize, long dataLength, PackBlock[] blocks, PackEntry[] entries, Dictionary<string, PackEntry> byName)
    {
        Version = version;
        BlockSize = blockSize;
        DataLength = dataLength;
        Blocks = blocks;
        Entries = entries;
        ByName = byName;
    }

    /// <summary>The pack's format version: <see cref="PackFormat.Version"/>, or <see cref="PackFormat.VersionWithoutBlockHashes"/> for a pack written before block hashes.</summary>
    public ushort Version { get; }

    /// <summary>Whether each block record holds the hash of the block's stored bytes (version 2 on).</summary>
    public bool HasBlockHashes => Version != PackFormat.VersionWithoutBlockHashes;

    public int BlockSize { get; }

    public long DataLength { get; }

    public PackBlock[] Blocks { get; }

    public PackEntry[] Entries { get; }

    public Dictionary<string, PackEntry> ByName { get; }

    /// <summary>Reads and checks the index; <paramref name="blocksChecked"/>, if given, gets the block records once they are checked, before the entries are parsed.</summary>
    public static PackIndex Read(SafeFileHandle handle, string packPath, long fileLength, Action<PackBlock[]>? blocksChecked = null)
    {
        if (fileLength < PackFormat.HeaderSize + PackFormat.FooterSize)
        {
            throw PackErrors.Corrupt(packPath, fileLength, $"the file is {fileLength} bytes, shorter than a header and a footer (truncated?)");
        }

        Span<byte> header = stackalloc byte[PackFormat.HeaderSize];
        PackIo.ReadExactly(handle, header, 0, packPath);
        if (!header[..8].SequenceEqual(PackFormat.HeaderMagic))
        {
            throw PackErrors.Corrupt(packPath, 0, "wrong magic number, not a FastLoad pack");
        }

        ushort version = BinaryPrimitives.ReadUInt16LittleEndian(header[8..]);
        if (version is not (PackFormat.Version or PackFormat.VersionWithoutBlockHashes))
        {
            throw PackErrors.Corrupt(
                packPath, 8, $"format version {version}, this reader knows versions {PackFormat.VersionWithoutBlockHashes} and {PackFormat.Version} only");
        }

        if (BinaryPrimitives.ReadUInt16LittleEndian(header[10..]) != 0 || BinaryPrimitives.ReadUInt32LittleEndian(header[12..]) != 0)
        {
            throw PackErrors.Corrupt(packPath, 10, "reserved header bytes are not zero");
        }

        long footerOffset = fileLength - PackFormat.FooterSize;
        Span<byte> footer = stackalloc byte[PackFormat.FooterSize];
        PackIo.ReadExactly(handle, footer, footerOffset, packPath);
        if (!footer[24..].SequenceEqual(PackFormat.FooterMagic))
        {
            throw PackErrors.Corrupt(packPath, footerOffset + 24, "no footer at the end of the file (truncated or appended to?)");
        }

        long indexOffset = BinaryPrimitives.ReadInt64LittleEndian(footer);
        long indexLength = BinaryPrimitives.ReadInt64LittleEndian(footer[8..]);
        ulong indexHash = BinaryPrimitives.ReadUInt64LittleEndian(footer[16..]);

        // The index lies right before the footer: anything else is a pointer outside the file or into the data.
        if (indexLength < PackFormat.IndexHeaderSize || indexOffset < PackFormat.HeaderSize || indexOffset > footerOffset
            || indexLength != footerOffset - indexOffset || indexLength > Array.MaxLength)
        {
            throw PackErrors.Corrupt(
                packPath,
                footerOffset,
                $"the footer places the index at offset {indexOffset} with length {indexLength}, but it must fill "
                + $"{PackFormat.HeaderSize}..{footerOffset} up to the footer");
        }

        byte[] index = new byte[indexLength];
        PackIo.ReadExactly(handle, index, indexOffset, packPath);
        if (PackHash.Hash(index) != indexHash)
        {
            throw PackErrors.Corrupt(packPath, indexOffset, "the index does not match its hash in the footer");
        }

        return Parse(version, index, indexOffset, packPath, blocksChecked);
    }

    private static PackIndex Parse(ushort version, ReadOnlySpan<byte> index, long indexOffset, string packPath, Action<PackBlock[]>? blocksChecked)
    {
        int blockRecordSize = version == PackFormat.VersionWithoutBlockHashes ? PackFormat.BlockRecordSizeWithoutHash : PackFormat.BlockRecordSize;
        int blockSize = BinaryPrimitives.ReadInt32LittleEndian(index);
        uint blockCount = BinaryPrimitives.ReadUInt32LittleEndian(index[4..]);
        uint entryCount = BinaryPrimitives.ReadUInt32LittleEndian(index[8..]);
        uint namesLength = BinaryPrimitives.ReadUInt32LittleEndian(index[12..]);
        long dataLength = BinaryPrimitives.ReadInt64LittleEndian(index[16..]);
        if (blockSize is < PackConstants.MinBlockSize or > PackConstants.MaxBlockSize)
        {
            throw PackErrors.Corrupt(packPath, indexOffset, $"block size {blockSize} is outside {PackConstants.MinBlockSize}..{PackConstants.MaxBlockSize}");
        }

        long expectedLength = PackFormat.IndexHeaderSize
            + ((long)blockCount * blockRecordSize)
            + ((long)entryCount * PackFormat.EntryRecordSize)
            + namesLength;
        if (expectedLength != index.Length)
        {
            throw PackErrors.Corrupt(
                packPath,
                indexOffset,
                $"{blockCount} blocks, {entryCount} entries and {namesLength} name bytes need an index of {expectedLength} bytes, not {index.Length}");
        }

        if (dataLength < 0 || dataLength > (long)blockCount * blockSize || dataLength <= ((long)blockCount - 1) * blockSize)
        {
            throw PackErrors.Corrupt(packPath, indexOffset + 16, $"{dataLength} bytes of data do not fill {blockCount} blocks of {blockSize} bytes");
        }

        PackBlock[] blocks = ParseBlocks(
            index.Slice(PackFormat.IndexHeaderSize, (int)blockCount * blockRecordSize), blockRecordSize, indexOffset, blockSize, dataLength, packPath);
        blocksChecked?.Invoke(blocks);
        int entriesStart = PackFormat.IndexHeaderSize + (blocks.Length * blockRecordSize);
        int namesStart = entriesStart + ((int)entryCount * PackFormat.EntryRecordSize);
        ReadOnlySpan<byte> names = index[namesStart..];
        var entries = new PackEntry[entryCount];
        var byName = new Dictionary<string, PackEntry>((int)Math.Min(entryCount, 1 << 20), StringComparer.Ordinal);
        long position = 0;
        for (int i = 0; i < entries.Length; i++)
        {
            int recordStart = entriesStart + (i * PackFormat.EntryRecordSize);
            long recordOffset = indexOffset + recordStart;
            ReadOnlySpan<byte> record = index.Slice(recordStart, PackFormat.EntryRecordSize);
            uint nameOffset = BinaryPrimitives.ReadUInt32LittleEndian(record);
            uint nameLength = BinaryPrimitives.ReadUInt32LittleEndian(record[4..]);
            uint block = BinaryPrimitives.ReadUInt32LittleEndian(record[8..]);
            uint offsetInBlock = BinaryPrimitives.ReadUInt32LittleEndian(record[12..]);
            long length = BinaryPrimitives.ReadInt64LittleEndian(record[16..]);
            ulong hash = BinaryPrimitives.ReadUInt64LittleEndian(record[24..]);
            if (nameLength is 0 or > PackNames.MaxNameBytes || nameOffset > names.Length || nameLength > names.Length - nameOffset)
            {
                throw PackErrors.CorruptEntry(
                    packPath, recordOffset, i, null, $"its name ({nameLength} bytes at {nameOffset}) lies outside the {names.Length} bytes of names");
            }

            string name = DecodeName(names.Slice((int)nameOffset, (int)nameLength), recordOffset, i, packPath);
            if (PackNames.Check(name) is { } problem)
            {
                throw PackErrors.CorruptEntry(packPath, recordOffset, i, name, $"unsafe name: {problem}");
            }

            // Entries lie back to back in index order, so the expected place is known: anything else overlaps another
            // entry, leaves a gap, or points into another block.
            if (block != position / blockSize || offsetInBlock != position % blockSize)
            {
                throw PackErrors.CorruptEntry(
                    packPath,
                    recordOffset,
                    i,
                    name,
                    $"declares block {block} offset {offsetInBlock}, but the previous entries end in block "
                    + $"{position / blockSize} at offset {position % blockSize} (overlap or gap)");
            }

            if (length < 0 || length > dataLength - position || length > Array.MaxLength)
            {
                throw PackErrors.CorruptEntry(
                    packPath, recordOffset, i, name, $"declares {length} bytes, but only {dataLength - position} bytes of data remain");
            }

            var entry = new PackEntry(name, i, position, length, hash);
            if (!byName.TryAdd(name, entry))
            {
                throw PackErrors.CorruptEntry(packPath, recordOffset, i, name, "a second entry with this name");
            }

            entries[i] = entry;
            position += length;
        }

        if (position != dataLength)
        {
            throw PackErrors.Corrupt(packPath, indexOffset + 16, $"the entries hold {position} bytes, the data {dataLength}");
        }

        return new PackIndex(version, blockSize, dataLength, blocks, entries, byName);
    }

    private static PackBlock[] ParseBlocks(ReadOnlySpan<byte> records, int recordSize, long indexOffset, int blockSize, long dataLength, string packPath)
    {
        var blocks = new PackBlock[records.Length / recordSize];
        long expectedOffset = PackFormat.HeaderSize;
        for (int i = 0; i < blocks.Length; i++)
        {
            ReadOnlySpan<byte> record = records.Slice(i * recordSize, recordSize);
            long recordOffset = indexOffset + PackFormat.IndexHeaderSize + (i * recordSize);
            long offset = BinaryPrimitives.ReadInt64LittleEndian(record);
            int stored = BinaryPrimitives.ReadInt32LittleEndian(record[8..]);
            int raw = BinaryPrimitives.ReadInt32LittleEndian(record[12..]);
            byte codec = record[16];
            int expectedRaw = (int)Math.Min(blockSize, dataLength - ((long)i * blockSize));
            if (offset != expectedOffset)
            {
                throw PackErrors.Corrupt(
                    packPath, recordOffset, $"block {i} starts at {offset}, but blocks lie back to back from the header, so it must start at {expectedOffset}");
            }

            if (raw != expectedRaw)
            {
                throw PackErrors.Corrupt(
                    packPath,
                    recordOffset,
                    $"block {i} declares {raw} bytes uncompressed; blocks of {blockSize} bytes over {dataLength} bytes of data make it {expectedRaw}");
            }

            bool storedOk = codec switch
            {
                PackFormat.CodecRaw => stored == raw,
                PackFormat.CodecLz4 => stored > 0 && stored < raw && raw <= ((long)stored * PackFormat.MaxLz4Ratio) + 16,
                _ => false,
            };
            if (!storedOk || record[17..PackFormat.BlockRecordSizeWithoutHash].IndexOfAnyExcept((byte)0) >= 0)
            {
                throw PackErrors.Corrupt(
                    packPath,
                    recordOffset,
                    $"block {i} has codec {codec} and {stored} stored bytes for {raw} bytes: impossible (a decompression bomb or a corrupt record)");
            }

            ulong? storedHash = recordSize == PackFormat.BlockRecordSize ? BinaryPrimitives.ReadUInt64LittleEndian(record[PackFormat.BlockRecordSizeWithoutHash..]) : null;
            blocks[i] = new PackBlock(offset, stored, raw, codec, storedHash);
            expectedOffset += stored;
            if (expectedOffset > indexOffset)
            {
                throw PackErrors.Corrupt(packPath, recordOffset, $"block {i} ends at {expectedOffset}, inside the index at {indexOffset}");
            }
        }

        if (expectedOffset != indexOffset)
        {
            throw PackErrors.Corrupt(packPath, indexOffset, $"the blocks end at {expectedOffset}, but the index starts at {indexOffset}");
        }

        return blocks;
    }

    private static string DecodeName(ReadOnlySpan<byte> bytes, long recordOffset, int index, string packPath)
    {
        try
        {
            return StrictUtf8.GetString(bytes);
        }
        catch (DecoderFallbackException)
        {
            throw PackErrors.CorruptEntry(packPath, recordOffset, index, null, "its name is not valid UTF-8");
        }
    }

    /// <summary>Lays out a version 2 index for <see cref="PackWriter"/>, every block with its hash: the exact bytes <see cref="Read"/> accepts.</summary>
    public static byte[] Serialize(int blockSize, IReadOnlyList<PackBlock> blocks, IReadOnlyList<(string Name, long Length, ulong Hash)> entries)
    {
        byte[][] names = entries.Select(entry => Encoding.UTF8.GetBytes(entry.Name)).ToArray();
        int namesLength = names.Sum(name => name.Length);
        long dataLength = entries.Sum(entry => entry.Length);
        byte[] index = new byte[
            PackFormat.IndexHeaderSize + (blocks.Count * PackFormat.BlockRecordSize) + (entries.Count * PackFormat.EntryRecordSize) + namesLength];
        Span<byte> span = index;
        BinaryPrimitives.WriteInt32LittleEndian(span, blockSize);
        BinaryPrimitives.WriteInt32LittleEndian(span[4..], blocks.Count);
        BinaryPrimitives.WriteInt32LittleEndian(span[8..], entries.Count);
        BinaryPrimitives.WriteInt32LittleEndian(span[12..], namesLength);
        BinaryPrimitives.WriteInt64LittleEndian(span[16..], dataLength);
        int at = PackFormat.IndexHeaderSize;
        foreach (PackBlock block in blocks)
        {
            BinaryPrimitives.WriteInt64LittleEndian(span[at..], block.Offset);
            BinaryPrimitives.WriteInt32LittleEndian(span[(at + 8)..], block.StoredLength);
            BinaryPrimitives.WriteInt32LittleEndian(span[(at + 12)..], block.RawLength);
            span[at + 16] = block.Codec;
            BinaryPrimitives.WriteUInt64LittleEndian(span[(at + PackFormat.BlockRecordSizeWithoutHash)..], block.StoredHash!.Value);
            at += PackFormat.BlockRecordSize;
        }

        int nameAt = 0;
        int namesStart = at + (entries.Count * PackFormat.EntryRecordSize);
        long position = 0;
        for (int i = 0; i < entries.Count; i++)
        {
            BinaryPrimitives.WriteInt32LittleEndian(span[at..], nameAt);
            BinaryPrimitives.WriteInt32LittleEndian(span[(at + 4)..], names[i].Length);
            BinaryPrimitives.WriteInt32LittleEndian(span[(at + 8)..], (int)(position / blockSize));
            BinaryPrimitives.WriteInt32LittleEndian(span[(at + 12)..], (int)(position % blockSize));
            BinaryPrimitives.WriteInt64LittleEndian(span[(at + 16)..], entries[i].Length);
            BinaryPrimitives.WriteUInt64LittleEndian(span[(at + 24)..], entries[i].Hash);
            names[i].CopyTo(span[(namesStart + nameAt)..]);
            nameAt += names[i].Length;
            position += entries[i].Length;
            at += PackFormat.EntryRecordSize;
        }

        return index;
    }
}
