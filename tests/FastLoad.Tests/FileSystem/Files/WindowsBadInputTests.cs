using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Windows;

/// <summary>
/// What Windows opens like a file but is not one, and files other processes hold open: each is reported with its path
/// while the files around it load, never read for ever and never mistaken for access denied.
/// </summary>
public sealed class WindowsBadInputTests : BadInputTestBase
{
    [WindowsFact("the NUL device, which CreateFileW opens like a file")]
    public async Task Collect_NulDevice_IsRejectedAsACharacterDevice()
    {
        Exception error = await LoadAmongGoodFilesAsync("NUL");

        Assert.IsType<IOException>(error);
        Assert.Contains("a character device, not a regular file", error.Message, StringComparison.Ordinal);
    }

    [WindowsFact("share modes, which Windows checks when a file is opened")]
    public async Task Collect_FileOpenWithoutSharing_FailsNamingItAndLoadsTheOthers()
    {
        string locked = WriteFile("locked.bin", 3000);
        using var holder = new FileStream(locked, FileMode.Open, FileAccess.ReadWrite, FileShare.None);

        Exception error = await LoadAmongGoodFilesAsync(locked);

        // ERROR_SHARING_VIOLATION: an IOException, not UnauthorizedAccessException (nothing about rights).
        Assert.IsType<IOException>(error);
    }

    [WindowsFact("share modes, which Windows checks when a file is opened")]
    public async Task Load_FileAnotherProcessIsWriting_IsReadBecauseFastLoadSharesWritingAndDeleting()
    {
        byte[] contents = Contents(70_000, seed: 3);
        string path = WriteFile("log.bin", contents);
        using var writer = new FileStream(path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete);

        var results = await Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([path]));

        Assert.Equal(contents, Assert.Single(results).Data);
    }

    [WindowsFact("share modes, which Windows checks when a file is opened")]
    public async Task Load_FileOpenWithoutDeleteSharing_IsReadSinceFastLoadAsksOnlyToRead()
    {
        byte[] contents = Contents(5000, seed: 4);
        string path = WriteFile("reader.bin", contents);
        using var reader = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read);

        var results = await Loads.CollectAsync(new FileLoader(), FileSet.FromPaths([path]));

        Assert.Equal(contents, Assert.Single(results).Data);
    }
}
