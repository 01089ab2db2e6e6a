using System.Text.Json;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reliability;

/// <summary>
/// Loads from a real block device that behaves like a hard disk: tools/emulated-hdd.sh mounts an ext4 loop device and
/// throttles the reads of the commands it runs (150 IOPS, 120 MB/s). The loads run as <c>fastload</c> child processes
/// inside the throttle. The throttle charges every read the same wherever it lies, so these tests judge detection,
/// order and bytes, never speed (depth and order are judged on a disk model with seeks: docs/measurements/hdd.md). Skipped, with the script's reason, where the machine cannot make one (not root, no loop
/// devices, no blkio or io cgroup controller).
/// </summary>
public sealed class EmulatedHddTests(EmulatedHddTests.Hdd hdd) : IClassFixture<EmulatedHddTests.Hdd>
{
    [Fact]
    public async Task Load_LooseFiles_RecognisedAsRotationalReadThroughAFixedWindowNothingLost()
    {
        hdd.SkipUnlessAvailable();

        JsonElement report = await hdd.LoadAsync(hdd.Files);

        Assert.EndsWith("-> Rotational", report.GetProperty("storage").GetString());
        Assert.Equal(Hdd.FileCount, report.GetProperty("files").GetInt32());
        Assert.Equal(0, report.GetProperty("failed").GetInt32());
        Assert.Equal(hdd.Checksum, report.GetProperty("checksum").GetString());
        Assert.Equal(64, report.GetProperty("degreeOfParallelism").GetInt32());
        Assert.All(report.GetProperty("parallelismHistory").EnumerateArray(), limit => Assert.Equal(64, limit.GetInt32()));
    }

    [Fact]
    public async Task Load_Pack_GivesTheLooseFilesBytes()
    {
        // How much faster the pack loads on this device is a benchmark (docs/reliability.md), not an assertion: a
        // shared machine moves it by a factor.
        hdd.SkipUnlessAvailable();

        JsonElement loose = await hdd.LoadAsync(hdd.Files);
        JsonElement pack = await hdd.LoadAsync(hdd.Pack);

        Assert.Equal(Hdd.FileCount, pack.GetProperty("files").GetInt32());
        Assert.Equal(hdd.Checksum, pack.GetProperty("checksum").GetString());
        Assert.Equal(loose.GetProperty("checksum").GetString(), pack.GetProperty("checksum").GetString());
    }

    [Fact]
    public async Task Load_InProcess_ReadsInPhysicalOrderAndDeliversEveryFileByteForByte()
    {
        hdd.SkipUnlessAvailable();

        // In this process the reads are not throttled, so with detection the reader threads could take every file
        // before the first of them has described the device; the kind is given instead (the child loads above check
        // that detection says rotational). The lane reads the real device's extents.
        var logs = new FakeLogCollector();
        using var loggerFactory = new LoggerFactory([new FakeLoggerProvider(logs)]);
        var loader = new FileLoader(new FileLoaderOptions { Storage = StorageKind.Rotational, ErrorHandling = LoadErrorHandling.Collect }, loggerFactory);
        var seen = new Dictionary<string, byte[]>();

        LoadSummary summary = await loader.LoadAsync(
            FileSet.FromDirectory(hdd.Files),
            (file, _) =>
            {
                seen.Add(file.Path, file.Data.ToArray());
                return ValueTask.CompletedTask;
            });

        Assert.Empty(summary.Failures);
        Assert.Equal(Hdd.FileCount, seen.Count);
        foreach ((string path, byte[] contents) in seen)
        {
            Assert.Equal(Hdd.Contents(int.Parse(Path.GetFileNameWithoutExtension(path)[1..])), contents);
        }

        Assert.Contains(logs.GetSnapshot(), entry => entry.Message.Contains("as Rotational", StringComparison.Ordinal) && entry.Message.EndsWith("physical order True)", StringComparison.Ordinal));
    }

    /// <summary>An emulated hard disk with a set of small files and a pack of them, made once for the class.</summary>
    public sealed class Hdd : IDisposable
    {
        public const int FileCount = 600;

        private readonly string _script;
        private readonly string _mount;

        public Hdd()
        {
            _mount = Path.Combine(Path.GetTempPath(), $"fastload-hdd-{Guid.NewGuid():N}");
            Files = Path.Combine(_mount, "files");
            Pack = Path.Combine(_mount, "files.fpk");
            if (!OperatingSystem.IsLinux())
            {
                _script = string.Empty;
                SkipReason = "Needs Linux (loop devices and cgroups).";
                return;
            }

            _script = FindScript();

            (int exitCode, string output) = Run(_script, "up", _mount, "1");
            if (exitCode == 3)
            {
                SkipReason = $"tools/emulated-hdd.sh cannot make an emulated HDD here: {output.Trim()}";
                return;
            }

            Assert.True(exitCode == 0, $"tools/emulated-hdd.sh up failed ({exitCode}): {output}");
            Directory.CreateDirectory(Files);
            var checksum = new FastLoad.Shared.LoadChecksum();
            for (int i = 0; i < FileCount; i++)
            {
                byte[] contents = Contents(i);
                File.WriteAllBytes(Path.Combine(Files, $"f{i:D4}.bin"), contents);
                checksum.Add(contents);
            }

            Checksum = checksum.Finish();
            (int packed, string packOutput, string packError) = FastLoadTool.RunAsync([], "pack", Files, Pack).GetAwaiter().GetResult();
            Assert.True(packed == 0, $"fastload pack failed ({packed}): {packOutput} {packError}");
        }

        /// <summary>Why the tests skip; <see langword="null"/> when the emulated HDD is up.</summary>
        public string? SkipReason { get; }

        /// <summary>Skips the calling test, with the reason, unless the emulated HDD is up.</summary>
        public void SkipUnlessAvailable()
        {
            if (SkipReason is { } reason)
            {
                Assert.Skip(reason);
            }
        }

        public string Files { get; }

        public string Pack { get; }

        /// <summary>The checksum of every file, as <c>fastload load --checksum</c> computes it.</summary>
        public string Checksum { get; } = string.Empty;

        /// <summary>File <paramref name="index"/>'s contents: 1-16 KiB of deterministic bytes.</summary>
        public static byte[] Contents(int index) => TempDirectoryTestBase.Contents(new Random(index).Next(1024, 16 * 1024), index);

        /// <summary>Loads <paramref name="path"/> cold with reads throttled, and returns the tool's JSON report.</summary>
        public async Task<JsonElement> LoadAsync(string path)
        {
            var (exitCode, output, error) = await FastLoadTool.RunAsync(["bash", _script, "run", _mount], "load", path, "--cold", "--json", "--checksum");
            Assert.True(exitCode == 0, $"fastload load {path} exited with {exitCode}: {error}");
            return JsonDocument.Parse(output).RootElement.Clone();
        }

        public void Dispose()
        {
            if (OperatingSystem.IsLinux())
            {
                // Always: a failed run must not leave a mounted loop device behind.
                Run(_script, "down", _mount);
                if (Directory.Exists(_mount))
                {
                    Directory.Delete(_mount, recursive: true);
                }
            }
        }

        private static string FindScript()
        {
            for (string? directory = AppContext.BaseDirectory; directory is not null; directory = Path.GetDirectoryName(directory))
            {
                string script = Path.Combine(directory, "tools", "emulated-hdd.sh");
                if (File.Exists(script))
                {
                    return script;
                }
            }

            throw new FileNotFoundException("tools/emulated-hdd.sh not found above the test directory.");
        }

        /// <summary>Runs the emulated-HDD script; its exit code and everything it printed.</summary>
        private static (int ExitCode, string Output) Run(params string[] arguments)
        {
            (int exitCode, string output, string error) = FastLoadTool.RunProcessAsync(["bash", .. arguments]).GetAwaiter().GetResult();
            return (exitCode, output + error);
        }
    }
}
