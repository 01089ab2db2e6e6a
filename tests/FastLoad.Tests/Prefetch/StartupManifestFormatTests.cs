using System.Buffers.Binary;
using FastLoad.Prefetch;

namespace FastLoad.Tests.Prefetch;

/// <summary>The manifest file: written canonical, read back the same, every field checked, damage always an InvalidDataException.</summary>
public sealed class StartupManifestFormatTests
{
    private static readonly string Root = OperatingSystem.IsWindows() ? @"C:\app\" : "/app/";

    [Fact]
    public void Write_ThenParse_GivesTheSameManifest()
    {
        StartupManifest manifest = Sample();

        StartupManifest read = ManifestFormat.Parse(ManifestFormat.Write(manifest), "test");

        Assert.Equal(manifest.BuildKey, read.BuildKey);
        Assert.Equal(manifest.Files.Select(Describe), read.Files.Select(Describe));
        Assert.Equal(3, read.RangeCount);
        Assert.Equal(100 + 4096 + 1, read.ByteCount);
        Assert.Equal(new DateTime(2026, 11, 25, 12, 0, 0, DateTimeKind.Utc).AddTicks(1234567), read.Files[0].LastWriteTimeUtc);
    }

    [Fact]
    public void Write_Twice_GivesTheSameBytes()
    {
        Assert.Equal(ManifestFormat.Write(Sample()), ManifestFormat.Write(Sample()));
    }

    [Fact]
    public void Parse_RandomMutations_ThrowsInvalidDataOrGivesACanonicalManifest()
    {
        byte[] valid = ManifestFormat.Write(Sample());
        var random = new Random(27);
        for (int round = 0; round < 3000; round++)
        {
            byte[] bytes = Mutate(valid, random);
            try
            {
                StartupManifest manifest = ManifestFormat.Parse(bytes, "fuzz");
                AssertCanonical(manifest);
            }
            catch (InvalidDataException ex)
            {
                Assert.StartsWith("'fuzz' is not a valid startup manifest: ", ex.Message);
            }
        }
    }

    [Fact]
    public void Parse_EveryTruncation_ThrowsInvalidData()
    {
        byte[] valid = ManifestFormat.Write(Sample());
        for (int length = 0; length < valid.Length; length++)
        {
            Assert.Throws<InvalidDataException>(() => ManifestFormat.Parse(valid.AsSpan(0, length), "cut"));
        }
    }

    public static TheoryData<string, string> BadFields => new()
    {
        { "relative path", "not a full path" },
        { "paths out of order", "out of order" },
        { "overlapping ranges", "overlaps" },
        { "range past the end", "leaves the file" },
        { "empty range", "overlaps" },
        { "counts disagree", "the header says" },
        { "reserved set", "reserved" },
        { "place of first use repeated", "repeated or past the 2 files" },
        { "place of first use past the files", "repeated or past the 2 files" },
        { "trailing bytes", "after the last file" },
    };

    [Theory]
    [MemberData(nameof(BadFields))]
    public void Parse_ValidChecksumButBadField_ThrowsNamingIt(string field, string expected)
    {
        byte[] bytes = field switch
        {
            "relative path" => Build(("app/a.dll", 100, [(0, 100)])),
            "paths out of order" => Build((Root + "b", 100, [(0, 100)]), (Root + "a", 100, [(0, 100)])),
            "overlapping ranges" => Build((Root + "a", 100, [(0, 50), (40, 10)])),
            "range past the end" => Build((Root + "a", 100, [(0, 101)])),
            "empty range" => Build((Root + "a", 100, [(10, 0)])),
            "counts disagree" => Build(byteCountDelta: 1, files: (Root + "a", 100, [(0, 100)])),
            "reserved set" => Build(reserved: 1, files: (Root + "a", 100, [(0, 100)])),
            "place of first use repeated" => Build((Root + "a", 100, 1, [(0, 100)]), (Root + "b", 100, 1, [(0, 100)])),
            "place of first use past the files" => Build((Root + "a", 100, 1, [(0, 100)]), (Root + "b", 100, 3, [(0, 100)])),
            _ => Build(trailing: 3, files: (Root + "a", 100, [(0, 100)])),
        };

        var ex = Assert.Throws<InvalidDataException>(() => ManifestFormat.Parse(bytes, "crafted"));

        Assert.Contains(expected, ex.Message);
    }

    [Fact]
    public void Parse_AnotherVersion_SaysWhichItReads()
    {
        byte[] bytes = ManifestFormat.Write(Sample());
        BinaryPrimitives.WriteUInt16LittleEndian(bytes.AsSpan(4), 1);

        var ex = Assert.Throws<InvalidDataException>(() => ManifestFormat.Parse(bytes, "v1"));

        Assert.Contains("version 1, which this FastLoad does not read (it reads version 2)", ex.Message);
    }

    [Fact]
    public void Read_LargerThanAManifestCanBe_RefusesWithoutReadingIt()
    {
        string path = Path.Combine(Path.GetTempPath(), $"fastload-huge-{Guid.NewGuid():N}.startup-manifest");
        using (var stream = File.Create(path))
        {
            stream.SetLength(ManifestFormat.MaxLength + 1L);
        }

        try
        {
            var ex = Assert.Throws<InvalidDataException>(() => StartupManifest.Read(path));
            Assert.Contains("more than a manifest can hold", ex.Message);
        }
        finally
        {
            File.Delete(path);
        }
    }

    private static StartupManifest Sample() => new(
        "app 0123456789abcdef",
        [
            new(Root + "a.dll", 20_000, 1_795_608_000_123_456_700, [new(0, 100), new(8192, 4096)], firstUse: 0),
            new(Root + "b é.json", 1, 1, [new(0, 1)], firstUse: 1),
        ]);

    private static string Describe(StartupManifestFile file) =>
        $"{file.Path} {file.Length} {file.LastWriteUnixNanoseconds} {file.FirstUse} {string.Join(",", file.Ranges)}";

    private static void AssertCanonical(StartupManifest manifest)
    {
        string? previous = null;
        foreach (StartupManifestFile file in manifest.Files)
        {
            Assert.True(Path.IsPathFullyQualified(file.Path));
            Assert.True(previous is null || string.CompareOrdinal(previous, file.Path) < 0);
            long end = -1;
            foreach (StartupManifestRange range in file.Ranges)
            {
                Assert.True(range.Offset > end && range.Length > 0 && range.End <= file.Length);
                end = range.End;
            }

            previous = file.Path;
        }
    }

    /// <summary>One to four changed bytes, or a cut, or bytes added; half the time with the checksum made to match.</summary>
    private static byte[] Mutate(byte[] valid, Random random)
    {
        byte[] bytes = [.. valid];
        switch (random.Next(4))
        {
            case 0:
                bytes = bytes[..random.Next(bytes.Length)];
                break;
            case 1:
                bytes = [.. bytes, .. new byte[random.Next(1, 16)]];
                break;
            default:
                for (int i = random.Next(1, 5); i > 0; i--)
                {
                    bytes[random.Next(bytes.Length)] = (byte)random.Next(256);
                }

                break;
        }

        if (bytes.Length >= ManifestFormat.HeaderLength + ManifestFormat.FooterLength && random.Next(2) == 0)
        {
            BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(bytes.Length - 4), ManifestChecksum.Compute(bytes.AsSpan(0, bytes.Length - 4)));
        }

        return bytes;
    }

    /// <summary>A manifest written field by field, with a valid checksum, whatever the fields say.</summary>
    private static byte[] Build(params (string Path, long Length, (long Offset, long Length)[] Ranges)[] files) =>
        Build(0, 0, 0, [.. files.Select(file => (file.Path, file.Length, 0u, file.Ranges))]);

    private static byte[] Build(params (string Path, long Length, uint FirstUse, (long Offset, long Length)[] Ranges)[] files) => Build(0, 0, 0, files);

    private static byte[] Build(long byteCountDelta = 0, uint reserved = 0, int trailing = 0, params (string Path, long Length, (long Offset, long Length)[] Ranges)[] files) =>
        Build(byteCountDelta, reserved, trailing, [.. files.Select(file => (file.Path, file.Length, 0u, file.Ranges))]);

    private static byte[] Build(long byteCountDelta, uint reserved, int trailing, (string Path, long Length, uint FirstUse, (long Offset, long Length)[] Ranges)[] files)
    {
        var body = new List<byte>();
        byte[] key = "build"u8.ToArray();
        body.AddRange(key);
        long bytes = byteCountDelta;
        int ranges = 0;
        foreach ((string path, long length, uint firstUse, (long Offset, long Length)[] fileRanges) in files)
        {
            byte[] name = System.Text.Encoding.UTF8.GetBytes(path);
            body.AddRange(BitConverter.GetBytes((ushort)name.Length));
            body.AddRange(name);
            body.AddRange(BitConverter.GetBytes(length));
            body.AddRange(BitConverter.GetBytes(0L));
            body.AddRange(BitConverter.GetBytes(firstUse));
            body.AddRange(BitConverter.GetBytes((uint)fileRanges.Length));
            foreach ((long offset, long rangeLength) in fileRanges)
            {
                body.AddRange(BitConverter.GetBytes(offset));
                body.AddRange(BitConverter.GetBytes(rangeLength));
                bytes += rangeLength;
                ranges++;
            }
        }

        body.AddRange(new byte[trailing]);
        byte[] header = new byte[ManifestFormat.HeaderLength];
        BinaryPrimitives.WriteUInt32LittleEndian(header, ManifestFormat.Magic);
        BinaryPrimitives.WriteUInt16LittleEndian(header.AsSpan(4), ManifestFormat.Version);
        BinaryPrimitives.WriteUInt16LittleEndian(header.AsSpan(6), ManifestFormat.HeaderLength);
        BinaryPrimitives.WriteUInt32LittleEndian(header.AsSpan(8), (uint)files.Length);
        BinaryPrimitives.WriteUInt32LittleEndian(header.AsSpan(12), (uint)ranges);
        BinaryPrimitives.WriteInt64LittleEndian(header.AsSpan(16), bytes);
        BinaryPrimitives.WriteUInt32LittleEndian(header.AsSpan(24), (uint)key.Length);
        BinaryPrimitives.WriteUInt32LittleEndian(header.AsSpan(28), reserved);
        byte[] content = [.. header, .. body];
        return [.. content, .. BitConverter.GetBytes(ManifestChecksum.Compute(content))];
    }
}
