using System.Buffers.Binary;
using System.Text;
using System.Text.Unicode;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Prefetch;

/// <summary>
/// The manifest file, version 2 (docs/startup-manifest.md): a 32-byte header (magic "FLSM", version, header length,
/// file, range and byte counts, build key length), the build key, one record per file (path, length, last write time,
/// place in the order of first use, ranges), and the CRC-32C of all that. Little-endian. Every field is checked before
/// it is used, and the form is canonical (paths in the ordinal order of their UTF-8 bytes, ranges ascending and apart,
/// places of first use apart), so that a start recorded twice gives the same bytes.
/// </summary>
internal static class ManifestFormat
{
    public const uint Magic = 0x4D534C46; // "FLSM" as bytes
    public const ushort Version = 2;
    public const int HeaderLength = 32;
    public const int FooterLength = sizeof(uint);

    /// <summary>Limits of the format, far above what options allow, so that a damaged count cannot ask for much memory.</summary>
    public const int MaxLength = 64 * 1024 * 1024;
    public const int MaxFiles = 65_536;
    public const int MaxRanges = 1 << 20;
    public const int MaxPathBytes = 4096;
    public const int MaxBuildKeyBytes = 1024;

    private const int FileRecordFixedLength = sizeof(ushort) + sizeof(long) + sizeof(long) + sizeof(uint) + sizeof(uint);
    private const int RangeLength = 2 * sizeof(long);

    /// <summary>
    /// The manifest's order of paths: ordinal order of their UTF-8 bytes (code point order). Compared as bytes, so that
    /// checking it at the top of <c>Main</c> needs no string comparison code the runtime would compile.
    /// </summary>
    public static int ComparePaths(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b)
    {
        int common = Math.Min(a.Length, b.Length);
        for (int i = 0; i < common; i++)
        {
            if (a[i] != b[i])
            {
                return a[i] - b[i];
            }
        }

        return a.Length - b.Length;
    }

    /// <summary>The manifest's bytes, canonical: files by ordinal path, ranges ascending (the recorder builds it so).</summary>
    public static byte[] Write(StartupManifest manifest)
    {
        byte[] key = Encoding.UTF8.GetBytes(manifest.BuildKey);
        StartupManifestFile[] files = manifest.FileArray;
        int length = HeaderLength + key.Length + FooterLength;
        var paths = new byte[files.Length][];
        for (int i = 0; i < paths.Length; i++)
        {
            paths[i] = Encoding.UTF8.GetBytes(files[i].Path);
            length += FileRecordFixedLength + paths[i].Length + (files[i].RangeArray.Length * RangeLength);
        }

        byte[] bytes = new byte[length];
        Span<byte> header = bytes;
        BinaryPrimitives.WriteUInt32LittleEndian(header, Magic);
        BinaryPrimitives.WriteUInt16LittleEndian(header[4..], Version);
        BinaryPrimitives.WriteUInt16LittleEndian(header[6..], HeaderLength);
        BinaryPrimitives.WriteUInt32LittleEndian(header[8..], (uint)files.Length);
        BinaryPrimitives.WriteUInt32LittleEndian(header[12..], (uint)manifest.RangeCount);
        BinaryPrimitives.WriteInt64LittleEndian(header[16..], manifest.ByteCount);
        BinaryPrimitives.WriteUInt32LittleEndian(header[24..], (uint)key.Length);
        BinaryPrimitives.WriteUInt32LittleEndian(header[28..], 0);
        int at = HeaderLength;
        key.CopyTo(bytes, at);
        at += key.Length;
        for (int i = 0; i < paths.Length; i++)
        {
            StartupManifestFile file = files[i];
            BinaryPrimitives.WriteUInt16LittleEndian(bytes.AsSpan(at), (ushort)paths[i].Length);
            paths[i].CopyTo(bytes, at + sizeof(ushort));
            at += sizeof(ushort) + paths[i].Length;
            BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(at), file.Length);
            BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(at + 8), file.LastWriteUnixNanoseconds);
            BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(at + 16), (uint)file.FirstUse);
            BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(at + 20), (uint)file.RangeArray.Length);
            at += 24;
            foreach (StartupManifestRange range in file.RangeArray)
            {
                BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(at), range.Offset);
                BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(at + 8), range.Length);
                at += RangeLength;
            }
        }

        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(at), ManifestChecksum.Compute(bytes.AsSpan(0, at)));
        return bytes;
    }

    /// <summary>A manifest file's bytes, refused before reading if it is larger than a manifest can be.</summary>
    /// <exception cref="InvalidDataException">The file is larger than <see cref="MaxLength"/>.</exception>
    public static byte[] ReadBytes(string path)
    {
        using SafeFileHandle handle = ReadableFile.Open(path, out long length);
        if (length > MaxLength)
        {
            throw new InvalidDataException($"'{path}' is not a startup manifest: {length} bytes, more than a manifest can hold ({MaxLength}).");
        }

        byte[] bytes = new byte[length];
        int read = 0;
        while (read < bytes.Length)
        {
            int count = RandomAccess.Read(handle, bytes.AsSpan(read), read);
            if (count == 0)
            {
                Array.Resize(ref bytes, read); // It shrank since it was opened: checked like any truncation.
                break;
            }

            read += count;
        }

        return bytes;
    }

    /// <summary>Checks and decodes a manifest; <paramref name="source"/> names it in the exception.</summary>
    /// <exception cref="InvalidDataException">What is wrong, and at which byte.</exception>
    public static StartupManifest Parse(ReadOnlySpan<byte> bytes, string source)
    {
        var reader = new Reader(bytes, source);
        if (bytes.Length < HeaderLength + FooterLength)
        {
            throw reader.Invalid($"{bytes.Length} bytes, fewer than a header and a checksum ({HeaderLength + FooterLength})");
        }

        if (reader.UInt32() != Magic)
        {
            throw reader.Invalid("not a startup manifest (no FLSM magic number)", 0);
        }

        ushort version = reader.UInt16();
        if (version != Version)
        {
            throw reader.Invalid($"version {version}, which this FastLoad does not read (it reads version {Version})", 4);
        }

        if (reader.UInt16() != HeaderLength)
        {
            throw reader.Invalid($"a header length other than {HeaderLength}", 6);
        }

        // The checksum first: most damage (a torn write, a truncation, flipped bits) ends here with one clear message.
        uint expected = BinaryPrimitives.ReadUInt32LittleEndian(bytes[^FooterLength..]);
        if (ManifestChecksum.Compute(bytes[..^FooterLength]) != expected)
        {
            throw reader.Invalid("the checksum does not match its contents (damaged or cut short)", bytes.Length - FooterLength);
        }

        uint fileCount = reader.UInt32();
        uint rangeCount = reader.UInt32();
        long byteCount = reader.Int64();
        uint keyLength = reader.UInt32();
        if (fileCount > MaxFiles || rangeCount > MaxRanges || rangeCount < fileCount || keyLength is 0 or > MaxBuildKeyBytes || byteCount < 0)
        {
            throw reader.Invalid($"counts out of range: {fileCount} files, {rangeCount} ranges, {byteCount} bytes, a build key of {keyLength} bytes", 8);
        }

        if (reader.UInt32() != 0)
        {
            throw reader.Invalid("reserved header bytes are not 0", 28);
        }

        string buildKey = reader.Text((int)keyLength, "build key");
        var files = new StartupManifestFile[fileCount];
        int rangesLeft = (int)rangeCount;
        long bytesSeen = 0;
        ReadOnlySpan<byte> previous = default;
        var placesTaken = new bool[files.Length + 1];
        for (int i = 0; i < files.Length; i++)
        {
            files[i] = ReadFile(ref reader, ref rangesLeft, ref previous, placesTaken);
            bytesSeen += files[i].ByteCount;
        }

        if (rangesLeft != 0 || bytesSeen != byteCount)
        {
            throw reader.Invalid($"the files hold {rangeCount - rangesLeft} ranges and {bytesSeen} bytes; the header says {rangeCount} and {byteCount}", 12);
        }

        if (reader.Position != bytes.Length - FooterLength)
        {
            throw reader.Invalid($"{bytes.Length - FooterLength - reader.Position} bytes after the last file");
        }

        return new StartupManifest(buildKey, files);
    }

    /// <summary>Reads one file's record; <paramref name="placesTaken"/> holds the places of first use of the files before (0 is no place).</summary>
    private static StartupManifestFile ReadFile(ref Reader reader, ref int rangesLeft, ref ReadOnlySpan<byte> previous, bool[] placesTaken)
    {
        int start = reader.Position;
        int pathLength = reader.UInt16();
        if (pathLength is 0 or > MaxPathBytes)
        {
            throw reader.Invalid($"a path of {pathLength} bytes", start);
        }

        ReadOnlySpan<byte> pathBytes = reader.Utf8Bytes(pathLength, "path");
        string path = Encoding.UTF8.GetString(pathBytes);
        if (path.Contains('\0', StringComparison.Ordinal) || !Path.IsPathFullyQualified(path))
        {
            throw reader.Invalid($"'{path}' is not a full path", start);
        }

        if (!previous.IsEmpty && ComparePaths(previous, pathBytes) >= 0)
        {
            throw reader.Invalid($"'{path}' is out of order or repeated (paths are in the ordinal order of their UTF-8 bytes)", start);
        }

        previous = pathBytes;

        long length = reader.Int64();
        long lastWrite = reader.Int64();
        uint firstUse = reader.UInt32();
        if (firstUse >= placesTaken.Length || (firstUse != 0 && placesTaken[firstUse]))
        {
            throw reader.Invalid($"'{path}' has place {firstUse} in the order of first use, repeated or past the {placesTaken.Length - 1} files", start);
        }

        placesTaken[firstUse] = true;
        uint count = reader.UInt32();
        if (length <= 0 || count == 0 || count > rangesLeft)
        {
            throw reader.Invalid($"'{path}' has a length of {length} and {count} ranges", start);
        }

        var ranges = new StartupManifestRange[count];
        long end = -1;
        for (int i = 0; i < ranges.Length; i++)
        {
            long offset = reader.Int64();
            long rangeLength = reader.Int64();

            // Apart from the previous range (touching ones are one range), inside the file; written so nothing overflows.
            if (offset <= end || rangeLength <= 0 || offset > length || rangeLength > length - offset)
            {
                throw reader.Invalid($"range {i} of '{path}' ({offset}, {rangeLength} bytes) overlaps, touches the one before or leaves the file's {length} bytes", reader.Position - RangeLength);
            }

            ranges[i] = new StartupManifestRange(offset, rangeLength);
            end = offset + rangeLength;
        }

        rangesLeft -= ranges.Length;
        return new StartupManifestFile(path, length, lastWrite, ranges, (int)firstUse);
    }

    /// <summary>Reads fields in order, checking that each is there.</summary>
    private ref struct Reader(ReadOnlySpan<byte> bytes, string source)
    {
        private readonly ReadOnlySpan<byte> _bytes = bytes;

        public int Position { get; private set; }

        public ushort UInt16() => BinaryPrimitives.ReadUInt16LittleEndian(Take(sizeof(ushort)));

        public uint UInt32() => BinaryPrimitives.ReadUInt32LittleEndian(Take(sizeof(uint)));

        public long Int64() => BinaryPrimitives.ReadInt64LittleEndian(Take(sizeof(long)));

        public string Text(int length, string what) => Encoding.UTF8.GetString(Utf8Bytes(length, what));

        public ReadOnlySpan<byte> Utf8Bytes(int length, string what)
        {
            int start = Position;
            ReadOnlySpan<byte> text = Take(length);
            return Utf8.IsValid(text) ? text : throw Invalid($"the {what} is not UTF-8", start);
        }

        public readonly InvalidDataException Invalid(string problem, int? at = null) =>
            new($"'{source}' is not a valid startup manifest: {problem} (at byte {at ?? Position}).");

        // The checksum is checked before any field past the header is read, yet a field must still fit before the footer.
        private ReadOnlySpan<byte> Take(int count)
        {
            if (count > _bytes.Length - FooterLength - Position)
            {
                throw Invalid($"cut short: {count} more bytes needed");
            }

            ReadOnlySpan<byte> taken = _bytes.Slice(Position, count);
            Position += count;
            return taken;
        }
    }
}
