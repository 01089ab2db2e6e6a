using System.Security.Cryptography;
using System.Text;
using FastLoad.Shared;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Tool;

/// <summary>
/// Every command path that consumes loaded files handles one over 2 GiB, whose contents exist only as a sequence.
/// The files are sparse: no disk is used, only the memory the load holds.
/// </summary>
public class LargeFileCommandTests : TempDirectoryTestBase
{
    private const long Size = (2L << 30) + 4096;

    // Held whole in memory and read more than once: Wine's 2 GiB of reads and memory outlast the run's budget.
    private const string OverTwoGiB = "a file over 2 GiB, held in memory and read more than once";

    [NotUnderWineFact(OverTwoGiB)]
    public async Task Load_FileOver2GiBWithChecksum_ReportsTheChecksumOfItsContents()
    {
        string path = SparseFile("big.bin");

        var (exitCode, output, error) = await FastLoadTool.RunAsync([], "load", path, "--checksum");

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {error}");
        Assert.Contains($"checksum   {ExpectedChecksum(path)}", output);
    }

    [NotUnderWineFact(OverTwoGiB)]
    public async Task FastLoadMethod_FileOver2GiB_CountsEveryByte()
    {
        string path = SparseFile("big.bin");

        long total = await LoadMethods.FastLoadAutomatic.Run([path], CancellationToken.None);

        Assert.Equal(Size, total);
    }

    [Fact]
    public async Task Load_PackWithChecksum_ReportsTheSameChecksumAsTheLooseFiles()
    {
        string folder = Path.Combine(Root, "loose");
        for (int i = 0; i < 5; i++)
        {
            WriteFile($"loose/f{i}.bin", 70_000 * i, seed: i);
        }

        string pack = Path.Combine(Root, "files.fpk");
        await PackWriter.CreateAsync(pack, folder);

        var loose = await FastLoadTool.RunAsync([], "load", folder, "--checksum");
        var packed = await FastLoadTool.RunAsync([], "load", pack, "--checksum");

        Assert.True(loose.ExitCode == 0 && packed.ExitCode == 0, $"stderr: {loose.Error} {packed.Error}");
        string Checksum(string output) => output.Split('\n').Single(line => line.StartsWith("checksum", StringComparison.Ordinal));
        Assert.Equal(Checksum(loose.Output), Checksum(packed.Output));
    }

    private string SparseFile(string name)
    {
        string path = Path.Combine(Root, name);
        using var stream = new FileStream(path, FileMode.CreateNew);
        stream.SetLength(Size);
        stream.Position = Size - 1;
        stream.WriteByte(0x5A);
        return path;
    }

    /// <summary>LoadChecksum's definition, computed here by streaming the file.</summary>
    private static string ExpectedChecksum(string path)
    {
        using FileStream stream = File.OpenRead(path);
        string fileHash = Convert.ToHexStringLower(SHA256.HashData(stream));
        return Convert.ToHexStringLower(SHA256.HashData(Encoding.ASCII.GetBytes(fileHash + "\n")));
    }
}
