using System.Text;
using FastLoad.Prefetch;

namespace FastLoad.Tests.Prefetch;

/// <summary>The pieces of a recording: lines of /proc/self/maps, ranges made canonical and bounded, the options.</summary>
public sealed class StartupRecordingPartsTests
{
    [Theory]
    [InlineData("7f2c4a000000-7f2c4a021000 r--p 00001000 fd:01 1234567                    /usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6")]
    [InlineData("7f2c4a000000-7f2c4a021000 r-xp 00000000 08:02 42 /opt/my app/lib with spaces.so", "/opt/my app/lib with spaces.so")]
    [InlineData("55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0                          [heap]", null)]
    [InlineData("7ffd1c000000-7ffd1c021000 rw-p 00000000 00:00 0", null)]
    [InlineData("7f2c4a000000-7f2c4a021000 r--s 00000000 00:05 1025                       /dev/zero", null)]
    [InlineData("7f2c4a000000-7f2c4a021000 r-xp 00000000 00:01 2048                       /memfd:doublemapper (deleted)", null)]
    [InlineData("7f2c4a000000-7f2c4a021000 r--p 00000000 fd:01 99                         /tmp/replaced.dll (deleted)", null)]
    [InlineData("7f2c4a021000-7f2c4a000000 r--p 00000000 fd:01 99 /tmp/backwards", null)]
    [InlineData("not a line", null)]
    public void ParseLine_Line_KeepsMappedRegularFilesOnly(string line, string? path)
    {
        Mapping? mapping = ProcessMaps.ParseLine(Encoding.UTF8.GetBytes(line));

        Assert.Equal(path, mapping?.Path);
    }

    [Fact]
    public void ParseLine_MappedFile_ReadsAddressesAndOffsetInHexadecimal()
    {
        Mapping mapping = ProcessMaps.ParseLine("7f2c4a000000-7f2c4a021000 r--p 0001a000 fd:01 1234567 /lib/a.so"u8)!;

        Assert.Equal(0x7f2c4a000000UL, mapping.Start);
        Assert.Equal(0x7f2c4a021000UL, mapping.End);
        Assert.Equal(0x1a000, mapping.Offset);
    }

    [Fact]
    public void Normalize_UnsortedOverlappingAndTouching_JoinsThemAndCutsAtTheLength()
    {
        var set = new RangeSet();
        set.Add(8192, 12288);
        set.Add(0, 4096);
        set.Add(4096, 5000);
        set.Add(10_000, 20_000);
        set.Add(30_000, 40_000);

        Assert.Equal([new StartupManifestRange(0, 5000), new StartupManifestRange(8192, 11_808)], set.Normalize(length: 20_000, maxRanges: 10));
    }

    [Fact]
    public void Normalize_MoreRangesThanAllowed_JoinsTheNearestFirst()
    {
        var set = new RangeSet();
        for (int i = 0; i < 100; i++)
        {
            set.Add(i * 16384L, (i * 16384L) + 4096);
        }

        StartupManifestRange[] ranges = set.Normalize(length: long.MaxValue, maxRanges: 10);

        Assert.InRange(ranges.Length, 1, 10);
        Assert.Equal(0, ranges[0].Offset);
        Assert.Equal((99 * 16384L) + 4096, ranges[^1].End);
    }

    [Fact]
    public void Options_Defaults_ArePinned()
    {
        var options = new StartupPrefetchOptions();

        Assert.Null(options.ManifestPath);
        Assert.Null(options.BuildKey);
        Assert.Equal(256L * 1024 * 1024, options.ReplayBudget);
        Assert.Equal(128 * 1024, options.ColdStartThreshold);
        Assert.True(options.Record);
        Assert.True(options.WaitOnSpinningDisk);
        Assert.Equal(TimeSpan.FromSeconds(2), options.RecordDelay);
        Assert.Equal(4096, options.MaxManifestFiles);
        Assert.Equal(512L * 1024 * 1024, options.MaxManifestBytes);
        Assert.Empty(options.AdditionalFiles);
        Assert.Null(options.Validate());
    }

    [Theory]
    [InlineData(nameof(StartupPrefetchOptions.ManifestPath))]
    [InlineData(nameof(StartupPrefetchOptions.BuildKey))]
    [InlineData(nameof(StartupPrefetchOptions.ReplayBudget))]
    [InlineData(nameof(StartupPrefetchOptions.ColdStartThreshold))]
    [InlineData(nameof(StartupPrefetchOptions.RecordDelay))]
    [InlineData(nameof(StartupPrefetchOptions.MaxManifestFiles))]
    [InlineData(nameof(StartupPrefetchOptions.MaxManifestBytes))]
    [InlineData(nameof(StartupPrefetchOptions.AdditionalFiles))]
    public void Validate_OneBadProperty_NamesIt(string property)
    {
        var options = new StartupPrefetchOptions();
        switch (property)
        {
            case nameof(StartupPrefetchOptions.ManifestPath): options.ManifestPath = string.Empty; break;
            case nameof(StartupPrefetchOptions.BuildKey): options.BuildKey = new string('x', 1025); break;
            case nameof(StartupPrefetchOptions.ReplayBudget): options.ReplayBudget = -1; break;
            case nameof(StartupPrefetchOptions.ColdStartThreshold): options.ColdStartThreshold = -1; break;
            case nameof(StartupPrefetchOptions.RecordDelay): options.RecordDelay = TimeSpan.FromMinutes(11); break;
            case nameof(StartupPrefetchOptions.MaxManifestFiles): options.MaxManifestFiles = 65_537; break;
            case nameof(StartupPrefetchOptions.MaxManifestBytes): options.MaxManifestBytes = 0; break;
            default: options.AdditionalFiles.Add(string.Empty); break;
        }

        string? failure = options.Validate();

        Assert.NotNull(failure);
        Assert.StartsWith(property, failure);
    }

    [Fact]
    public void Clone_LaterChangesToTheOptions_DoNotReachTheCopy()
    {
        var options = new StartupPrefetchOptions { AdditionalFiles = { "/a" } };

        StartupPrefetchOptions copy = options.Clone();
        options.AdditionalFiles.Add("/b");
        options.ReplayBudget = 1;

        Assert.Equal(["/a"], copy.AdditionalFiles);
        Assert.Equal(256L * 1024 * 1024, copy.ReplayBudget);
    }
}
