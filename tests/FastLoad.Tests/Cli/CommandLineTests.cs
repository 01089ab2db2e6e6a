using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Tool;

/// <summary>
/// The rules every command shares: a token that starts with '-' is an option, so a mistyped one is an error rather than
/// a path (<c>--</c> before a path that starts with '-'); a path that does not exist is one line, the same for every
/// command, with nothing printed before it; and tables have headers.
/// </summary>
public class CommandLineTests : TempDirectoryTestBase
{
    private const int Usage = 2;

    // Split at spaces; {path} is the path under test, {dir} the test's folder.
    public static TheoryData<string> CommandsWithAPath() =>
    [
        "load {path}",
        "load {dir} {path}",
        "probe {path}",
        "bench {path}",
        "pack {path} {dir}/out.fpk",
        "unpack {path} {dir}/out",
        "list {path}",
        "verify {path}",
    ];

    [Theory]
    [MemberData(nameof(CommandsWithAPath))]
    public async Task Command_WithAMistypedOption_IsUnrecognizedWithUsageExitCode(string commandLine)
    {
        WriteFile("a.bin", 100);
        ArgumentNullException.ThrowIfNull(commandLine);
        string[] command = commandLine.Split(' ');

        // Before the paths and after them: never taken as a path.
        foreach (string[] arguments in new string[][] { [command[0], "--recursiv", .. command[1..]], [.. command, "--recursiv"] })
        {
            var (exitCode, output, error) = await FastLoadTool.RunAsync([], Fill(arguments, Path.Combine(Root, "a.bin")));

            Assert.True(exitCode == Usage, $"{string.Join(' ', arguments)}: exit code {exitCode}; stdout: {output}; stderr: {error}");
            Assert.Contains("fastload: Unrecognized command or argument '--recursiv'.", error, StringComparison.Ordinal);
            Assert.Equal(string.Empty, output);
        }
    }

    [Theory]
    [MemberData(nameof(CommandsWithAPath))]
    public async Task Command_WithAPathThatDoesNotExist_PrintsOneLineNamingItAndNothingElse(string commandLine)
    {
        ArgumentNullException.ThrowIfNull(commandLine);
        string missing = Path.Combine(Root, "no-such-thing");

        var (exitCode, output, error) = await FastLoadTool.RunAsync([], Fill(commandLine.Split(' '), missing));

        Assert.Equal(Usage, exitCode);
        Assert.Equal(string.Empty, output);
        Assert.Equal($"fastload: no such file or folder: '{missing}'", error.TrimEnd());
    }

    [Fact]
    public async Task Load_DoubleDashBeforeAPathThatStartsWithADash_LoadsIt()
    {
        WriteFile("-r", 123);

        var (exitCode, output, error) = await FastLoadTool.RunInAsync(Root, "load", "--", "-r");

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {error}");
        Assert.Matches(@"files\s+1\n", output.ReplaceLineEndings("\n"));
        Assert.Matches(@"bytes\s+123\n", output.ReplaceLineEndings("\n"));
    }

    [Fact]
    public async Task Load_ShortOptionBeforeDoubleDash_IsStillAnOption()
    {
        WriteFile("sub/a.bin", 10);

        var (exitCode, output, error) = await FastLoadTool.RunInAsync(Root, "load", "-r", "--", "sub");

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {error}");
        Assert.Matches(@"files\s+1\n", output.ReplaceLineEndings("\n"));
    }

    [Fact]
    public async Task List_PrintsAHeaderAboveTheEntries()
    {
        WriteFile("site/index.html", 1000);
        string pack = Path.Combine(Root, "site.fpk");
        var (packed, _, packError) = await FastLoadTool.RunAsync([], "pack", Path.Combine(Root, "site"), pack);
        Assert.True(packed == 0, packError);

        var (exitCode, output, error) = await FastLoadTool.RunAsync([], "list", pack);

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {error}");
        string[] lines = output.ReplaceLineEndings("\n").TrimEnd().Split('\n');
        Assert.Equal(["length", "xxh64", "name"], lines[0].Split(' ', StringSplitOptions.RemoveEmptyEntries));
        Assert.Equal("1000", lines[1].Split(' ', StringSplitOptions.RemoveEmptyEntries)[0]);
        Assert.EndsWith("index.html", lines[1], StringComparison.Ordinal);
    }

    private string[] Fill(string[] arguments, string path) =>
        [.. arguments.Select(argument => argument.Replace("{path}", path, StringComparison.Ordinal).Replace("{dir}", Root, StringComparison.Ordinal))];
}
