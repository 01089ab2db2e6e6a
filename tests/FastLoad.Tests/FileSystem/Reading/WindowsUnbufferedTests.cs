using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Windows;

/// <summary>
/// Unbuffered reads on Windows: a second handle with FILE_FLAG_NO_BUFFERING, checked to be the same file, read in
/// whole sectors into aligned memory; the tail past the last whole sector is cut off again.
/// </summary>
public sealed class WindowsUnbufferedTests : TempDirectoryTestBase
{
    // FileReader reads files of 16 MiB and more by strategy; smaller ones are read whole, buffered.
    private const int Threshold = 16 * 1024 * 1024;

    [WindowsTheory("FILE_FLAG_NO_BUFFERING")]
    [InlineData(Threshold)]
    [InlineData(Threshold + 1)]
    [InlineData(Threshold + 511)]
    [InlineData(Threshold + 4095)]
    [InlineData(Threshold + 4097)]
    [InlineData(Threshold + (3 * 1024 * 1024) + 3)]
    public async Task Load_UnbufferedFileOfSize_ReadsEveryByteThroughTheAlignedPathWithoutFallingBack(int size)
    {
        byte[] expected = Contents(size, seed: size);
        string path = WriteFile("large.bin", expected);
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);
        var loader = new FileLoader(new FileLoaderOptions { Buffering = FileBuffering.Unbuffered }, loggerFactory);

        var results = await Loads.CollectAsync(loader, FileSet.FromPaths([path]));

        Assert.Equal(expected, Assert.Single(results).Data);
        Assert.DoesNotContain(logs.GetSnapshot(), entry => entry.Id.Id == FastLoadEventId.UnbufferedFallback);
    }
}
