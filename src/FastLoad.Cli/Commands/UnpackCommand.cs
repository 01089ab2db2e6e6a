using System.CommandLine;
using System.Diagnostics;

namespace FastLoad.Cli.Commands;

/// <summary><c>fastload unpack &lt;file&gt; &lt;dir&gt;</c>: write a pack's entries under a folder, never outside it.</summary>
internal static class UnpackCommand
{
    public static Command Create()
    {
        var file = new Argument<string>("file") { Description = "The pack to read." }.MustExist();
        var directory = new Argument<string>("dir") { Description = "The folder to write the entries under (created if missing)." };
        var command = new Command("unpack", "Write every entry of a pack under a folder; refuses symbolic links on the way.") { file, directory };
        command.SetAction((parse, cancellationToken) => PackFailures.RunAsync(async () =>
        {
            long start = Stopwatch.GetTimestamp();
            await using PackReader reader = await PackReader.OpenAsync(parse.GetValue(file)!, cancellationToken);
            await reader.ExtractAsync(parse.GetValue(directory)!, cancellationToken);
            double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
            Console.WriteLine($"{reader.Entries.Count:N0} files, {reader.DataLength:N0} bytes in {seconds:F3} s, {reader.DataLength / seconds / 1e6:N1} MB/s");
            return ExitCodes.Success;
        }));
        return command;
    }
}
