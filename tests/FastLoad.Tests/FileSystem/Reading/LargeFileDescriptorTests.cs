using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reliability;

/// <summary>Buffered large files are read in ranges, each through a descriptor of its own: every one is closed again.</summary>
[Collection(ProcessWide.Name)]
public sealed class LargeFileDescriptorTests : TempDirectoryTestBase
{
    [LinuxFact("/proc/self/fd")]
    public async Task LoadAsync_BufferedLargeFilesReadInRanges_LeaveNoDescriptorOpen()
    {
        byte[] expected = Contents((40 * 1024 * 1024) + 5, seed: 11);
        string path = WriteFile("large.bin", expected);
        var loader = new FileLoader(new FileLoaderOptions { Buffering = FileBuffering.Buffered });
        await Loads.CollectAsync(loader, FileSet.FromPaths([path])); // Whatever the runtime opens once is opened now.
        int before = ProcessWide.OpenDescriptorsBaseline();

        for (int i = 0; i < 5; i++)
        {
            var results = await Loads.CollectAsync(loader, FileSet.FromPaths([path]));
            Assert.Equal(expected, Assert.Single(results).Data);
        }

        Assert.Equal(before, ProcessWide.OpenDescriptors());
    }
}
