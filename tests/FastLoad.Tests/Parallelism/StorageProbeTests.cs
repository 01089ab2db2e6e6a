using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Parallelism;

public class StorageProbeTests : TempDirectoryTestBase
{
    [LinuxFact]
    public void Describe_TempDirectory_NamesADeviceAndFileSystem()
    {
        StorageDevice device = StorageProbe.Describe(Root);

        Assert.False(string.IsNullOrEmpty(device.Name));
        Assert.Matches(@"^\d+:\d+$", device.DeviceId);
        Assert.NotNull(device.FileSystem);
        Assert.Contains(device.Name, device.ToString());
    }

    [LinuxFact]
    public void Describe_Tmpfs_IsMemory()
    {
        Assert.True(Directory.Exists("/dev/shm"), "/dev/shm is a tmpfs on every Linux this project targets.");

        StorageDevice device = StorageProbe.Describe("/dev/shm");

        Assert.Equal(StorageKind.Memory, device.Kind);
        Assert.Equal(StorageBus.Memory, device.Bus);
    }

    [SkippableFact]
    public void Describe_VirtioDisk_IsUnknownWhateverItsRotationalFlagSays()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "Needs Linux (sysfs tells the bus).");
        StorageDevice device = StorageProbe.Describe(Root);
        Skip.If(device.Bus != StorageBus.Virtio, $"The temporary folder is on {device.Name} ({device.Bus}), not on a virtio disk.");

        Assert.Equal(StorageKind.Unknown, device.Kind);
        Assert.NotNull(device.IsRotational);
    }

    [LinuxFact]
    public void Describe_ProcFileSystem_HasNoBlockDeviceAndIsUnknown()
    {
        StorageDevice device = StorageProbe.Describe("/proc/self/status");

        Assert.Equal(StorageKind.Unknown, device.Kind);
        Assert.Equal("proc", device.FileSystem);
    }

    [Fact]
    public void Describe_MissingPath_ThrowsNamingIt()
    {
        string missing = Path.Combine(Root, "missing");

        var ex = Assert.ThrowsAny<IOException>(() => StorageProbe.Describe(missing));

        Assert.Contains(missing, ex.Message);
    }

    [LinuxFact]
    public void Describe_SamePathTwice_ReturnsTheCachedDescription()
    {
        Assert.Same(StorageProbe.Describe(Root), StorageProbe.Describe(Root));
    }
}
