using System.Text.RegularExpressions;
using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Windows;

/// <summary>
/// The Windows device probe (volume, serial number, file system, storage queries) and physical order (retrieval
/// pointers). Under Wine the storage queries are not answered and FSCTL_GET_RETRIEVAL_POINTERS is a stub: these tests
/// pin what FastLoad then does.
/// </summary>
public sealed partial class WindowsStorageTests : TempDirectoryTestBase
{
    [WindowsFact("volume names and serial numbers")]
    public void Describe_TempDirectory_NamesTheVolumeItsSerialNumberAndFileSystem()
    {
        StorageDevice device = StorageProbe.Describe(Root);

        Assert.Matches(VolumeName(), device.Name);
        Assert.Matches("^[0-9A-F]{8}$", device.DeviceId);
        Assert.False(string.IsNullOrEmpty(device.FileSystem));
        Assert.Same(device, StorageProbe.Describe(WriteFile("f.bin", 1)));
    }

    [WindowsFact("IOCTL_STORAGE_QUERY_PROPERTY")]
    public void Describe_TempDirectory_KindFollowsTheSeekPenaltyAndAnUnansweredQueryIsNamed()
    {
        StorageDevice device = StorageProbe.Describe(Root);

        if (device.IsRotational is null && device.Bus != StorageBus.Nvme)
        {
            // Wine's answer, and a volume whose disk does not say: no guess, and the reason is shown with the kind.
            Assert.Equal(StorageKind.Unknown, device.Kind);
            Assert.Contains("-> Unknown (", device.ToString(), StringComparison.Ordinal);
            Assert.Contains("seek penalty query", device.ToString(), StringComparison.Ordinal);
        }
        else
        {
            Assert.Equal(device.IsRotational == false || device.Bus == StorageBus.Nvme, device.Kind == StorageKind.SolidState);
        }
    }

    [WindowsFact("FSCTL_GET_RETRIEVAL_POINTERS")]
    public void FirstExtentOffset_FileWithData_IsItsFirstClusterAndZeroUnderWine()
    {
        string path = WriteFile("data.bin", 256 * 1024);

        ulong first = PhysicalLayout.FirstExtentOffset(path);

        // Wine's stub answers every file with one extent at cluster 0: all tie, so physical order keeps input order.
        Assert.NotEqual(ulong.MaxValue, first);
        Assert.Equal(TestPlatform.IsWine, first == 0);
    }

    [WindowsFact("FSCTL_GET_RETRIEVAL_POINTERS")]
    public async Task Load_PhysicalOrderOn_ReadsInTheOrderOfFirstClustersAndInInputOrderWhereUnknown()
    {
        List<string> paths = [.. Enumerable.Range(0, 24).Select(i => WriteFile($"f{i:D2}.bin", 64 * 1024, seed: i))];
        paths.Reverse();
        var readOrder = new List<string>();
        var pool = new CountingPool();
        var loader = new FileLoader(new FileLoaderOptions { PhysicalOrder = PhysicalOrder.On, MaxDegreeOfParallelism = 1, BufferPool = pool });

        LoadSummary summary = await loader.LoadAsync(FileSet.FromPaths(paths), (file, _) =>
        {
            readOrder.Add(file.Path);
            return ValueTask.CompletedTask;
        });

        Assert.Equal(paths.Count, summary.FileCount);
        Assert.Equal(paths.OrderBy(PhysicalLayout.FirstExtentOffset), readOrder); // OrderBy is stable: ties keep input order.
        pool.AssertAllReturned();
    }

    [GeneratedRegex(@"^([A-Za-z]:|\\\\)")]
    private static partial Regex VolumeName();
}
