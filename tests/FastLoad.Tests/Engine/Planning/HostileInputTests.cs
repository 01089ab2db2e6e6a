using System.Text;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reliability;

/// <summary>
/// The bad inputs of issue 8 that <c>BadInputTests</c> does not cover: links to things that are not regular files,
/// link loops, sparse files of several GiB, files replaced between planning and reading, names that are not UTF-8,
/// paths at the limits of Linux. Each is reported with its path and cause; the good files around it load intact.
/// </summary>
public class HostileInputTests : BadInputTestBase
{
    // Linux limits: a path of at most PATH_MAX bytes with its terminating NUL, a name of at most NAME_MAX bytes.
    private const int PathMax = 4096;
    private const int NameMax = 255;

    [LinuxFact("a symbolic link, which Windows makes only with a privilege")]
    public async Task Collect_SymlinkToDirectory_ReportsADirectory()
    {
        Directory.CreateDirectory(Path.Combine(Root, "sub"));
        string link = Path.Combine(Root, "link-to-dir");
        File.CreateSymbolicLink(link, Path.Combine(Root, "sub"));

        Exception error = await LoadAmongGoodFilesAsync(link);

        Assert.Contains("a directory", error.Message);
    }

    [LinuxFact("a character device behind a symbolic link")]
    public async Task Collect_SymlinkToCharacterDevice_IsRejected()
    {
        string link = Path.Combine(Root, "link-to-zero");
        File.CreateSymbolicLink(link, "/dev/zero");

        Exception error = await LoadAmongGoodFilesAsync(link);

        Assert.Contains("character device", error.Message);
    }

    [LinuxFact("a Unix socket file behind a symbolic link")]
    public async Task Collect_SymlinkToSocket_IsRejected()
    {
        string socketPath = Path.Combine(Root, "socket");
        using var socket = Native.CreateSocketFile(socketPath);
        string link = Path.Combine(Root, "link-to-socket");
        File.CreateSymbolicLink(link, socketPath);

        Exception error = await LoadAmongGoodFilesAsync(link);

        Assert.Contains("socket", error.Message);
    }

    [LinuxFact("a loop of symbolic links")]
    public async Task Collect_SymlinkLoopGivenAsPath_ReportsTheLoop()
    {
        string a = Path.Combine(Root, "loop-a");
        string b = Path.Combine(Root, "loop-b");
        File.CreateSymbolicLink(a, b);
        File.CreateSymbolicLink(b, a);

        Exception error = await LoadAmongGoodFilesAsync(a);

        Assert.IsAssignableFrom<IOException>(error);
        Assert.Contains("symbolic links", error.Message); // ELOOP: "Too many levels of symbolic links".
    }

    [LinuxFact("a loop of symbolic links")]
    public async Task Collect_FileSymlinkLoopInsideEnumeratedFolder_ReportsEachLinkAndLoadsTheRest()
    {
        byte[] contents = Contents(4000, seed: 7);
        string good = WriteFile("good.bin", contents);
        string a = Path.Combine(Root, "loop-a");
        string b = Path.Combine(Root, "loop-b");
        File.CreateSymbolicLink(a, b);
        File.CreateSymbolicLink(b, a);
        var pool = new CountingPool();

        var results = await Loads.CollectAsync(Collecting(pool), FileSet.FromDirectory(Root)).WaitAsync(NoHang);

        Assert.Equal([good, a, b], results.Select(r => r.Path).Order(StringComparer.Ordinal));
        Assert.Equal(contents, results.Single(r => r.Path == good).Data);
        Assert.All(results.Where(r => r.Path != good), r => Assert.Contains(r.Path, Assert.IsAssignableFrom<IOException>(r.Error).Message));
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task Load_SparseFileOver4GiB_LoadsWholeWithoutTruncatingItsLength()
    {
        // Cut to 32 bits, this length would read as 4096 bytes.
        const long Length = (4L << 30) + 4096;
        string path = Path.Combine(Root, "sparse.bin");
        using (var stream = new FileStream(path, FileMode.CreateNew))
        {
            stream.SetLength(Length); // Sparse: no disk space used.
            stream.Position = Length - 1;
            stream.WriteByte(42);
        }

        var pool = new CountingPool();
        LoadSummary summary = await new FileLoader(new FileLoaderOptions { BufferPool = pool, ErrorHandling = LoadErrorHandling.Collect }).LoadAsync(
            FileSet.FromPaths([path]),
            (file, _) =>
            {
                Assert.Equal(Length, file.Length);
                Assert.Equal(Length, file.Sequence.Length);
                Assert.Equal(42, file.Sequence.Slice(Length - 1).FirstSpan[0]);
                return ValueTask.CompletedTask;
            });

        Assert.Equal(1, summary.FileCount);
        Assert.Equal(Length, summary.ByteCount);
        pool.AssertAllReturned();
    }

    [Fact]
    public async Task Collect_FileReplacedBySmallerOneBetweenPlanAndRead_LoadsWhatIsThereWhenOpened()
    {
        string a = WriteFile("a.bin", 1000);
        string b = WriteFile("b.bin", 300_000);
        byte[] replacement = Contents(10, seed: 8);
        string staged = WriteFile("staged.bin", replacement);

        var results = await LoadWhileReplacingAsync(a, b, () => File.Move(staged, b, overwrite: true));

        Assert.Null(results[1].Error);
        Assert.Equal(replacement, results[1].Data);
    }

    [Fact]
    public async Task Collect_FileReplacedByDirectoryBetweenPlanAndRead_ReportsADirectory()
    {
        string a = WriteFile("a.bin", 1000);
        string b = WriteFile("b.bin", 2000);

        var results = await LoadWhileReplacingAsync(a, b, () =>
        {
            File.Delete(b);
            Directory.CreateDirectory(b);
        });

        Assert.Contains("a directory", Assert.IsAssignableFrom<IOException>(results[1].Error).Message);
    }

    [LinuxFact("a FIFO")]
    public async Task Collect_FileReplacedByFifoBetweenPlanAndRead_IsRejectedWithoutHanging()
    {
        string a = WriteFile("a.bin", 1000);
        string b = WriteFile("b.bin", 2000);

        var results = await LoadWhileReplacingAsync(a, b, () =>
        {
            File.Delete(b);
            Native.CreateFifo(b);
        });

        Assert.Contains("FIFO", Assert.IsAssignableFrom<IOException>(results[1].Error).Message);
    }

    [LinuxFact("file names of any bytes; Windows names are UTF-16")]
    public async Task Collect_NameNotValidUtf8_IsReportedNeverSkipped()
    {
        byte[] good = Contents(3000, seed: 9);
        WriteFile("good.bin", good);
        using var rawFile = Native.CreateFileWithRawName(Root, [.. "bad-"u8, 0xFF, 0xFE, .. ".bin"u8], Contents(100, seed: 10));
        var pool = new CountingPool();

        var results = await Loads.CollectAsync(Collecting(pool), FileSet.FromDirectory(Root)).WaitAsync(NoHang);

        // .NET decodes the name with U+FFFD in place of the bad bytes; the file must still come out, loaded or failed.
        Assert.Equal(2, results.Count);
        Assert.Equal(good, results.Single(r => r.Path.EndsWith("good.bin", StringComparison.Ordinal)).Data);
        var odd = results.Single(r => !r.Path.EndsWith("good.bin", StringComparison.Ordinal));
        Assert.Contains('\uFFFD', odd.Path);
        Assert.Contains(odd.Path, Assert.IsAssignableFrom<Exception>(odd.Error).Message);
        pool.AssertAllReturned();
    }

    [LinuxFact("file names of any bytes; Windows names are UTF-16")]
    public async Task Collect_NameNotValidUtf8_ErrorSaysTheNameIsNotUtf8()
    {
        using var rawFile = Native.CreateFileWithRawName(Root, [.. "bad-"u8, 0xFF, .. ".bin"u8], Contents(100, seed: 11));

        var result = Assert.Single(await Loads.CollectAsync(Collecting(new CountingPool()), FileSet.FromDirectory(Root)).WaitAsync(NoHang));

        // The file exists: "not found" would send the user looking for the wrong problem.
        Exception error = Assert.IsAssignableFrom<Exception>(result.Error);
        Assert.IsNotType<FileNotFoundException>(error);
        Assert.Contains("UTF-8", error.Message);
    }

    [LinuxFact("file names of any bytes; Windows names are UTF-16")]
    public async Task Collect_FolderNameNotValidUtf8_ItsFilesLoadOrFailSayingSoInsteadOfVanishing()
    {
        string good = WriteFile("good.bin", 10);
        byte[] contents = Contents(100, seed: 14);
        using var folder = Native.CreateFolderWithRawName(Root, [.. "bad-"u8, 0xFF], "inside.bin", contents);

        var results = await Loads.CollectAsync(Collecting(new CountingPool()), FileSet.FromDirectory(Root)).WaitAsync(NoHang);

        // The file under the folder exists: leaving it out would make the load look complete. Opened by its name in
        // the folder the walk kept open, it loads; opened by its path (a folder beyond those kept), which cannot name
        // the folder, it fails saying why. Never another file's bytes.
        Assert.Equal(2, results.Count);
        Assert.Null(results.Single(r => r.Path == good).Error);
        var inside = results.Single(r => r.Path != good);
        Assert.EndsWith("inside.bin", inside.Path, StringComparison.Ordinal);
        if (inside.Error is null)
        {
            Assert.Equal(contents, inside.Data);
        }
        else
        {
            Assert.Contains("UTF-8", inside.Error.Message);
        }
    }

    [LinuxFact("file names of any bytes; Windows names are UTF-16")]
    public async Task Collect_FolderNameNotValidUtf8NextToItsDecodedTwin_NeverDeliversTheTwinsBytesForIt()
    {
        // "x\xff/" decodes to "x\uFFFD/", which is also the valid name of another folder: both files have one path.
        byte[] twin = Contents(200, seed: 15);
        byte[] raw = Contents(300, seed: 16);
        WriteFile("x\uFFFD/inside.bin", twin);
        using var rawFolder = Native.CreateFolderWithRawName(Root, [(byte)'x', 0xFF], "inside.bin", raw);

        var results = await Loads.CollectAsync(Collecting(new CountingPool()), FileSet.FromDirectory(Root)).WaitAsync(NoHang);

        Assert.Equal(2, results.Count);
        Assert.Single(results, r => r.Data is not null && r.Data.AsSpan().SequenceEqual(twin));
        Assert.Single(results, r => r.Error is not null || r.Data.AsSpan().SequenceEqual(raw));
    }

    [LinuxFact("file names of any bytes; Windows names are UTF-16")]
    public async Task Collect_NameNotValidUtf8NextToItsDecodedTwin_NeverDeliversTheTwinsBytesForIt()
    {
        // "x\xff" decodes to "x\uFFFD", which is also the valid name of another file.
        byte[] twin = Contents(200, seed: 12);
        byte[] raw = Contents(300, seed: 13);
        WriteFile("x\uFFFD", twin);
        using var rawFile = Native.CreateFileWithRawName(Root, [(byte)'x', 0xFF], raw);

        var results = await Loads.CollectAsync(Collecting(new CountingPool()), FileSet.FromDirectory(Root)).WaitAsync(NoHang);

        // Two directory entries, two results; the raw-named one either carries its own bytes or an error.
        Assert.Equal(2, results.Count);
        Assert.Single(results, r => r.Data is not null && r.Data.AsSpan().SequenceEqual(twin));
        Assert.Single(results, r => r.Error is not null || r.Data.AsSpan().SequenceEqual(raw));
    }

    [LinuxFact("PATH_MAX and NAME_MAX as Linux sets them")]
    public async Task LoadAsync_PathNearPathMaxWithNamesNearNameMax_LoadsIt()
    {
        string directory = LongDirectory(PathMax - 1 - 1 - NameMax); // Room for "/" and a name of NAME_MAX bytes.
        byte[] contents = Contents(5000, seed: 14);
        string path = WriteFile(Path.Combine(directory, new string('f', NameMax)), contents);
        Assert.Equal(PathMax - 1, Encoding.UTF8.GetByteCount(path));

        var fromPaths = await Loads.CollectAsync(Collecting(new CountingPool()), FileSet.FromPaths([path])).WaitAsync(NoHang);
        var fromDirectory = await Loads.CollectAsync(Collecting(new CountingPool()), FileSet.FromDirectory(Root)).WaitAsync(NoHang);

        Assert.Equal(contents, Assert.Single(fromPaths).Data);
        Assert.Equal(path, Assert.Single(fromDirectory).Path);
        Assert.Equal(contents, Assert.Single(fromDirectory).Data);
    }

    [LinuxTheory("PATH_MAX as Linux sets it")]
    [InlineData(PathMax)] // One byte too many for PATH_MAX with its NUL.
    [InlineData(3 * PathMax)]
    public async Task Collect_PathLongerThanPathMaxWithShortNames_ReportsPathTooLong(int length)
    {
        // The deepest directory that can exist, then names of 100 bytes: only the whole path is too long.
        string path = Lengthen(LongDirectory(PathMax - 1 - 100), length, maxName: 100, 'g');
        Assert.Equal(length, Encoding.UTF8.GetByteCount(path));

        Exception error = await LoadAmongGoodFilesAsync(path);

        Assert.IsType<PathTooLongException>(error);
    }

    [LinuxFact("NAME_MAX as Linux sets it")]
    public async Task Collect_NameLongerThanNameMax_ReportsPathTooLong()
    {
        Exception error = await LoadAmongGoodFilesAsync(Path.Combine(Root, new string('n', NameMax + 1)));

        Assert.IsType<PathTooLongException>(error);
    }

    /// <summary>Creates directories under <see cref="TempDirectoryTestBase.Root"/> with names of up to NAME_MAX bytes; the result is exactly <paramref name="length"/> bytes.</summary>
    private string LongDirectory(int length)
    {
        string directory = Lengthen(Root, length, NameMax, 'd');
        Directory.CreateDirectory(directory);
        return directory;
    }

    /// <summary>Appends names of at most <paramref name="maxName"/> bytes to <paramref name="path"/> until it is <paramref name="length"/> bytes (ASCII) long.</summary>
    private static string Lengthen(string path, int length, int maxName, char letter)
    {
        while (path.Length < length)
        {
            // Never leave a single byte, which would be a "/" with no name after it.
            int remaining = length - path.Length - 1;
            int name = remaining <= maxName ? remaining : remaining - maxName == 1 ? maxName - 1 : maxName;
            path = Path.Combine(path, new string(letter, name));
        }

        Assert.Equal(length, path.Length);
        return path;
    }

    private async Task<List<(string Path, int Index, byte[]? Data, Exception? Error)>> LoadWhileReplacingAsync(string first, string second, Action replaceSecond)
    {
        var pool = new CountingPool();
        pool.OnRent = _ =>
        {
            if (pool.RentCount == 0)
            {
                replaceSecond(); // The first file is open; the second was planned or is about to be.
            }
        };

        var results = await Loads.CollectAsync(Collecting(pool, parallelism: 1), FileSet.FromPaths([first, second])).WaitAsync(NoHang);

        Assert.Equal([first, second], results.Select(r => r.Path));
        Assert.Null(results[0].Error);
        pool.AssertAllReturned();
        return results;
    }
}
