using System.Runtime.Versioning;
using System.Text.Json;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reliability;

/// <summary>
/// Files and folders the current user may not read. The tests run as root in CI, and root reads a file whatever its
/// mode, so the load runs in a child process of the <c>fastload</c> tool as uid/gid 65534 ("nobody"), started
/// through <c>setpriv --reuid=65534 --regid=65534 --clear-groups</c>.
/// </summary>
[SupportedOSPlatform("linux")]
public class UnreadableFileTests : TempDirectoryTestBase
{
    private const int SomeFailed = 1;

    private static readonly string[] AsNobody =
        [UnprivilegedChildFactAttribute.SetprivPath, "--reuid=65534", "--regid=65534", "--clear-groups"];

    [UnprivilegedChildFact]
    public async Task Load_FileUnreadableForTheUser_JsonErrorsNameTheFileAndPermissionDenied()
    {
        string good = WriteFile("good.bin", 1234);
        string locked = WriteFile("locked.bin", 99);
        File.SetUnixFileMode(locked, UnixFileMode.None);

        var (exitCode, output, error) = await FastLoadTool.RunAsync(AsNobody, "load", good, locked, "--json");

        Assert.True(exitCode == SomeFailed, $"exit code {exitCode}; stderr: {error}");
        using JsonDocument json = JsonDocument.Parse(output);
        Assert.Equal(1, json.RootElement.GetProperty("files").GetInt32());
        Assert.Equal(1234, json.RootElement.GetProperty("bytes").GetInt64());
        Assert.Equal(1, json.RootElement.GetProperty("failed").GetInt32());
        JsonElement failure = Assert.Single(json.RootElement.GetProperty("errors").EnumerateArray());
        Assert.Equal(locked, failure.GetProperty("path").GetString());
        string message = failure.GetProperty("error").GetString()!;
        Assert.Contains(locked, message);
        Assert.Contains("Permission denied", message);
    }

    [UnprivilegedChildFact]
    public async Task Load_FolderWithUnreadableSubfolder_FailsNamingItInsteadOfSkippingIt()
    {
        WriteFile("good.bin", 10);
        string hidden = Path.GetDirectoryName(WriteFile("locked/inside.bin", 10))!;
        File.SetUnixFileMode(hidden, UnixFileMode.None);

        var (exitCode, output, error) = await FastLoadTool.RunAsync(AsNobody, "load", Root, "--recursive", "--json");

        // Enumeration fails as a whole: a load that silently left out a folder would look complete.
        Assert.True(exitCode == SomeFailed, $"exit code {exitCode}; stdout: {output}");
        Assert.Contains(hidden, error);
        Assert.Contains("denied", error);
    }
}
