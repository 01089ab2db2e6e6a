using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Parallelism;

public class StorageProbeTests : TempDirectoryTestBase
{
    [Theory]
    [InlineData("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue", "98:0", "ext3", "/dev/root")]
    [InlineData("29 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw", "254:1", "ext4", "/dev/vda1")]
    [InlineData("25 29 0:22 / /run rw,nosuid - tmpfs tmpfs rw,mode=755", "0:22", "tmpfs", "tmpfs")]
    public void MountOf_MountinfoLine_TypeAndSourceAfterTheSeparator(string line, string id, string fileSystem, string source)
    {
        Assert.Equal((fileSystem, source), StorageProbe.MountOf(System.Text.Encoding.ASCII.GetBytes(line), id));
    }

    [Theory]
    [InlineData("36 35 98:0 /mnt1 /mnt2 rw - ext3 /dev/root rw", "98:1")] // another device
    [InlineData("36 35 198:0 /mnt1 /mnt2 rw - ext3 /dev/root rw", "98:0")] // a longer number that ends the same
    [InlineData("36 35 98:0 /mnt1 /mnt2 rw - ext3", "98:0")] // no source
    [InlineData("36 35 98:0 /a-b /mnt2 rw ext3 /dev/root", "98:0")] // no separator field
    [InlineData("", "98:0")]
    public void MountOf_OtherOrIncompleteLine_Null(string line, string id)
    {
        Assert.Null(StorageProbe.MountOf(System.Text.Encoding.ASCII.GetBytes(line), id));
    }

    [Theory]
    [InlineData("MAJOR=8\nMINOR=1\nDEVNAME=sda1\nDEVTYPE=partition\nPARTN=1\n", "sda1", true)]
    [InlineData("MAJOR=254\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\nDISKSEQ=9\n", "vda", false)]
    [InlineData("MAJOR=259\nMINOR=2\nDEVNAME=nvme0n1p2\nDEVTYPE=partition", "nvme0n1p2", true)] // no final newline
    public void ParseUevent_BlockDevice_NameAndWhetherAPartition(string text, string name, bool partition)
    {
        Assert.Equal((name, partition), StorageProbe.ParseUevent(System.Text.Encoding.ASCII.GetBytes(text)));
    }

    [Theory]
    [InlineData("MAJOR=8\nMINOR=1\nDEVTYPE=partition\n")] // no name
    [InlineData("DEVNAME=\n")]
    [InlineData("")] // the attribute is missing or unreadable
    public void ParseUevent_NoName_Null(string text)
    {
        Assert.Null(StorageProbe.ParseUevent(System.Text.Encoding.ASCII.GetBytes(text)));
    }

    [Theory]
    [InlineData("256\n", 256)]
    [InlineData(" 1 ", 1)]
    [InlineData("0", 0)]
    [InlineData("", null)]
    [InlineData("-1\n", null)]
    [InlineData("12a", null)]
    [InlineData("9999999999", null)] // would overflow
    public void ParseCount_Attribute_DigitsOrNull(string text, int? expected)
    {
        Assert.Equal(expected, StorageProbe.ParseCount(System.Text.Encoding.ASCII.GetBytes(text)));
    }

    [LinuxFact("major:minor device numbers; Windows has its own test")]
    public void Describe_TempDirectory_NamesADeviceAndFileSystem()
    {
        StorageDevice device = StorageProbe.Describe(Root);

        Assert.False(string.IsNullOrEmpty(device.Name));
        Assert.Matches(@"^\d+:\d+$", device.DeviceId);
        Assert.NotNull(device.FileSystem);
        Assert.Contains(device.Name, device.ToString());
    }

    [LinuxFact("/dev/shm, a tmpfs")]
    public void Describe_Tmpfs_IsMemory()
    {
        Assert.True(Directory.Exists("/dev/shm"), "/dev/shm is a tmpfs on every Linux this project targets.");

        StorageDevice device = StorageProbe.Describe("/dev/shm");

        Assert.Equal(StorageKind.Memory, device.Kind);
        Assert.Equal(StorageBus.Memory, device.Bus);
    }

    [LinuxFact("sysfs, which names the bus")]
    public void Describe_VirtioDisk_IsUnknownWhateverItsRotationalFlagSays()
    {
        StorageDevice device = StorageProbe.Describe(Root);
        Assert.SkipWhen(device.Bus != StorageBus.Virtio, $"The temporary folder is on {device.Name} ({device.Bus}), not on a virtio disk.");

        Assert.Equal(StorageKind.Unknown, device.Kind);
        Assert.NotNull(device.IsRotational);
    }

    [LinuxFact("sysfs")]
    public void CannotSpin_TempDirectory_AgreesWithTheDescription()
    {
        // A load asks this before its first read, and describes the device only where it may spin.
        StorageDevice device = StorageProbe.Describe(Root);
        ulong id = FastLoad.FileSystem.FileStatus.Get(Root).DeviceId;

        Assert.Equal(device.IsRotational == false || device.Bus == StorageBus.Virtio, StorageProbe.CannotSpinLinux(id));
        Assert.False(StorageProbe.CannotSpinLinux(FastLoad.FileSystem.FileStatus.Get("/proc/self/status").DeviceId));
    }

    [LinuxFact("/proc")]
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

    [Fact]
    public void Describe_SamePathTwice_ReturnsTheCachedDescription()
    {
        Assert.Same(StorageProbe.Describe(Root), StorageProbe.Describe(Root));
    }
}
