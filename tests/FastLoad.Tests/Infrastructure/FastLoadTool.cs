using System.Diagnostics;

namespace FastLoad.Tests.Infrastructure;

/// <summary>Runs the <c>fastload</c> tool (copied next to the tests by a project reference) in a child process.</summary>
internal static class FastLoadTool
{
    private static readonly TimeSpan NoHang = TimeSpan.FromSeconds(120);

    public static string DllPath { get; } = Path.Combine(AppContext.BaseDirectory, "FastLoad.Cli.dll");

    /// <summary>The dotnet host running the tests, so the child runs on the same runtime.</summary>
    public static string DotnetPath { get; } =
        Path.GetFileNameWithoutExtension(Environment.ProcessPath) == "dotnet" ? Environment.ProcessPath! : "dotnet";

    /// <summary>
    /// The tool's own executable on Windows, where there is one next to the tests: a self-contained build of the tests
    /// (the one .ci/run runs under Wine) has no dotnet host, and .ci/run publishes the tool into the same folder.
    /// </summary>
    private static string? WindowsExecutable { get; } =
        OperatingSystem.IsWindows() && File.Exists(Path.Combine(AppContext.BaseDirectory, "FastLoad.Cli.exe"))
            ? Path.Combine(AppContext.BaseDirectory, "FastLoad.Cli.exe")
            : null;

    /// <summary>Runs <c>fastload</c> with <paramref name="arguments"/>, prefixed by <paramref name="launcher"/> (say, setpriv and its options).</summary>
    public static Task<(int ExitCode, string Output, string Error)> RunAsync(IEnumerable<string> launcher, params string[] arguments) =>
        RunProcessAsync([.. launcher, .. Tool(arguments)]);

    /// <summary>Runs <c>fastload</c> with <paramref name="arguments"/> in <paramref name="workingDirectory"/> (for relative paths).</summary>
    public static Task<(int ExitCode, string Output, string Error)> RunInAsync(string workingDirectory, params string[] arguments) =>
        RunProcessAsync(workingDirectory, Tool(arguments));

    /// <summary>Runs <paramref name="command"/> (program, then arguments) to its end, killed if it hangs; its exit code and output.</summary>
    public static Task<(int ExitCode, string Output, string Error)> RunProcessAsync(params string[] command) => RunProcessAsync(null, command);

    /// <summary>Starts <c>fastload</c> with <paramref name="arguments"/>, its output redirected, for a test that acts while it runs.</summary>
    public static Process Start(params string[] arguments) => Process.Start(StartInfo(null, Tool(arguments)))!;

    /// <summary>The command line that runs the tool with <paramref name="arguments"/>.</summary>
    private static string[] Tool(string[] arguments) =>
        WindowsExecutable is { } executable ? [executable, .. arguments] : [DotnetPath, DllPath, .. arguments];

    private static async Task<(int ExitCode, string Output, string Error)> RunProcessAsync(string? workingDirectory, string[] command)
    {
        using var process = Process.Start(StartInfo(workingDirectory, command))!;
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        Task<string> error = process.StandardError.ReadToEndAsync();
        try
        {
            await process.WaitForExitAsync().WaitAsync(NoHang);
        }
        catch (TimeoutException)
        {
            process.Kill(entireProcessTree: true);
            throw;
        }

        return (process.ExitCode, await output, await error);
    }

    private static ProcessStartInfo StartInfo(string? workingDirectory, string[] command)
    {
        var start = new ProcessStartInfo(command[0])
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory ?? string.Empty,
        };
        foreach (string argument in command.Skip(1))
        {
            start.ArgumentList.Add(argument);
        }

        return start;
    }
}
