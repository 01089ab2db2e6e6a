using System.Globalization;
using FastLoad.Tests.Architecture;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Cli;

/// <summary>
/// The NativeAOT tool's first code on Linux (src/FastLoad.Cli/native/read-ahead-self.c, an ELF constructor linked into
/// the executable): before the runtime starts, it asks the kernel for the whole executable, a piece at a time, since
/// one advice reads at most a read-ahead window. Checked by compiling it into a small executable of a few megabytes
/// whose calls to <c>posix_fadvise</c> a preloaded shim records.
/// </summary>
public class ReadAheadSelfTests : TempDirectoryTestBase
{
    private const int WillNeed = 3;

    private const string Shim = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <fcntl.h>
        #include <stdio.h>
        #include <stdlib.h>

        int posix_fadvise(int fd, off_t offset, off_t length, int advice)
        {
            FILE *log = fopen(getenv("ADVICE_LOG"), "a");
            if (log != NULL)
            {
                fprintf(log, "%lld %lld %d\n", (long long)offset, (long long)length, advice);
                fclose(log);
            }

            int (*next)(int, off_t, off_t, int) = (int (*)(int, off_t, off_t, int))dlsym(RTLD_NEXT, "posix_fadvise");
            return next(fd, offset, length, advice);
        }
        """;

    // A program with 3 MiB of initialized data, so that the executable needs several pieces.
    private const string Program = """
        char padding[3 * 1024 * 1024] = { 1 };
        int main(void) { return padding[0] - 1; }
        """;

    [LinuxFact("an ELF constructor and LD_PRELOAD")]
    public async Task Constructor_BeforeMain_AdvisesTheWholeExecutableInPiecesOfAtMost1MiB()
    {
        Assert.SkipUnless(Which("cc"), "No C compiler (cc) here; the tool's NativeAOT publish links with one, and this test compiles the constructor with it.");
        string source = Path.Combine(SourceLayers.FindRepositoryRoot(), "src", "FastLoad.Cli", "native", "read-ahead-self.c");
        string shim = Path.Combine(Root, "shim.so");
        string executable = Path.Combine(Root, "program");
        string log = Path.Combine(Root, "advice.log");
        File.WriteAllText(Path.Combine(Root, "shim.c"), Shim);
        File.WriteAllText(Path.Combine(Root, "main.c"), Program);
        await Run("cc", "-shared", "-fPIC", "-o", shim, Path.Combine(Root, "shim.c"), "-ldl");
        await Run("cc", "-O2", "-Wall", "-Werror", "-o", executable, source, Path.Combine(Root, "main.c"));

        await Run("env", $"LD_PRELOAD={shim}", $"ADVICE_LOG={log}", executable);

        long length = new FileInfo(executable).Length;
        (long Offset, long Length, int Advice)[] advice = [.. File.ReadAllLines(log).Select(line => line.Split(' ')).Select(fields => (
            long.Parse(fields[0], CultureInfo.InvariantCulture), long.Parse(fields[1], CultureInfo.InvariantCulture), int.Parse(fields[2], CultureInfo.InvariantCulture)))];
        Assert.True(advice.Length > 1, $"{advice.Length} advice for an executable of {length:N0} bytes.");
        Assert.All(advice, piece => Assert.Equal(WillNeed, piece.Advice));
        Assert.All(advice, piece => Assert.InRange(piece.Length, 1, 1024 * 1024));
        long covered = 0;
        foreach ((long offset, long pieceLength, _) in advice)
        {
            Assert.Equal(covered, offset);
            covered += pieceLength;
        }

        Assert.True(covered >= length, $"advised {covered:N0} of {length:N0} bytes");
    }

    private static bool Which(string command) =>
        (Environment.GetEnvironmentVariable("PATH") ?? string.Empty).Split(':').Any(folder => File.Exists(Path.Combine(folder, command)));

    private static async Task Run(params string[] command)
    {
        (int exitCode, _, string error) = await FastLoadTool.RunProcessAsync(command);
        Assert.True(exitCode == 0, $"{string.Join(' ', command)} exited with {exitCode}: {error}");
    }
}
