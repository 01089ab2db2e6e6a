using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Tests.Reading;

/// <summary>A read the kernel refuses names the file and the offset, and carries the error number for callers that tell causes apart.</summary>
public class ReadErrorTests : TempDirectoryTestBase
{
    [LinuxFact("O_DIRECT through fcntl")]
    public void ReadAt_KernelRefusesTheRead_ThrowsWithTheErrnoAsHResultAndNamesTheFile()
    {
        // O_DIRECT with a buffer that is not aligned: EINVAL from the read itself, as on a file system that accepts
        // the flag and refuses the reads (the unbuffered reader falls back to buffered reads on exactly this).
        string path = WriteFile("direct.bin", 64 * 1024, seed: 1);
        using SafeFileHandle handle = File.OpenHandle(path);
        int fd = (int)handle.DangerousGetHandle();
        int flags = Interop.Fcntl(fd, Interop.FcntlGetFlags, 0);
        Assert.True(flags >= 0);
        Assert.SkipWhen(
            Interop.Fcntl(fd, Interop.FcntlSetFlags, flags | Interop.OpenDirect) != 0,
            $"The file system of {Root} refuses O_DIRECT at open, so no read can be refused.");
        byte[] buffer = GC.AllocateUninitializedArray<byte>(8192 + 4096, pinned: true);

        var error = Assert.Throws<IOException>(() => WholeFileReader.ReadAt(handle, path, buffer.AsSpan(1, 4096), 0));

        Assert.Equal(Interop.EINVAL, error.HResult);
        Assert.Contains(path, error.Message, StringComparison.Ordinal);
        Assert.Contains("offset 0", error.Message, StringComparison.Ordinal);
    }
}
