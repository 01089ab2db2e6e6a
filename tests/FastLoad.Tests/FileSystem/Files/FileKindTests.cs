using System.Diagnostics;
using System.Globalization;
using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reliability;

/// <summary>
/// The kind of a file comes from stat's mode bits on Linux and macOS alike (.NET's FileAttributes.Device is never set
/// on Unix). macOS's stat call cannot run here; the classification it feeds is checked on this machine's real files.
/// </summary>
public class FileKindTests : TempDirectoryTestBase
{
    [Theory]
    [InlineData(0x81A4u, nameof(FileKind.Regular))]          // -rw-r--r--
    [InlineData(0x41EDu, nameof(FileKind.Directory))]        // drwxr-xr-x
    [InlineData(0x11B6u, nameof(FileKind.Fifo))]             // prw-rw-rw-
    [InlineData(0x21B6u, nameof(FileKind.CharacterDevice))]  // crw-rw-rw- (/dev/null)
    [InlineData(0x61B0u, nameof(FileKind.BlockDevice))]      // brw-rw----
    [InlineData(0xC1EDu, nameof(FileKind.Socket))]           // srwxr-xr-x
    [InlineData(0xA1FFu, nameof(FileKind.Unknown))]          // a link itself: stat follows links, so never seen
    public void KindFromMode_EachFileType_IsRecognised(uint mode, string expected)
    {
        Assert.Equal(expected, FileStatus.KindFromMode(mode).ToString());
    }

    [LinuxFact("FIFOs and device files")]
    public void KindFromMode_RealSpecialFiles_AreNotRegular()
    {
        string fifo = Native.CreateFifo(Path.Combine(Root, "fifo"));
        string regular = WriteFile("regular.bin", 10);

        Assert.Equal(FileKind.Fifo, FileStatus.KindFromMode(RawMode(fifo)));
        Assert.Equal(FileKind.CharacterDevice, FileStatus.KindFromMode(RawMode("/dev/null")));
        Assert.Equal(FileKind.CharacterDevice, FileStatus.KindFromMode(RawMode("/dev/zero")));
        Assert.Equal(FileKind.Directory, FileStatus.KindFromMode(RawMode(Root)));
        Assert.Equal(FileKind.Regular, FileStatus.KindFromMode(RawMode(regular)));

        // What the old check relied on: .NET reports neither a FIFO nor a device as one.
        Assert.Equal(0, (int)(new FileInfo(fifo).Attributes & FileAttributes.Device));
        Assert.Equal(0, (int)(new FileInfo("/dev/null").Attributes & FileAttributes.Device));
    }

    /// <summary>st_mode as coreutils' stat prints it (hex), independent of FastLoad's own statx call.</summary>
    private static uint RawMode(string path)
    {
        var start = new ProcessStartInfo("stat", ["-L", "-c", "%f", path]) { RedirectStandardOutput = true };
        using Process process = Process.Start(start)!;
        string output = process.StandardOutput.ReadToEnd().Trim();
        process.WaitForExit();
        return uint.Parse(output, NumberStyles.HexNumber, CultureInfo.InvariantCulture);
    }
}
