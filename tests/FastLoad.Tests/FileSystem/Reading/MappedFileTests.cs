using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Tests.Reading;

public class MappedFileTests : TempDirectoryTestBase
{
    [LinuxFact("/proc/self/maps")]
    public void Map_FailureAfterThePointerIsAcquired_UnmapsTheFile()
    {
        string path = WriteFile("mapped.bin", 1 << 20);
        SafeFileHandle handle = File.OpenHandle(path);

        Assert.Throws<IOException>(() => MappedFile.Map(ref handle, 1 << 20, (_, _, _) => throw new IOException("wrap failed")));

        Assert.DoesNotContain(path, File.ReadAllText("/proc/self/maps"));
    }

    [LinuxFact("/proc/self/maps")]
    public void Map_Disposed_UnmapsTheFile()
    {
        string path = WriteFile("mapped.bin", 1 << 20);
        SafeFileHandle handle = File.OpenHandle(path);

        FileContents contents = MappedFile.Map(ref handle, 1 << 20);
        Assert.Contains(path, File.ReadAllText("/proc/self/maps"));
        contents.Dispose();

        Assert.DoesNotContain(path, File.ReadAllText("/proc/self/maps"));
    }
}
