using System.CommandLine;
using System.Diagnostics;

namespace FastLoad.Cli.Commands;

/// <summary><c>fastload pack &lt;dir&gt; &lt;file&gt;</c>: pack every file under a folder into one LZ4-compressed pack.</summary>
internal static class PackCommand
{
    public static Command Create()
    {
        var directory = new Argument<string>("dir") { Description = "The folder to pack (recursively; entry names are relative to it)." };
        var file = new Argument<string>("file") { Description = "The pack to write (conventionally *.fpk); replaced if it exists." };
        var blockSize = new Option<int>("--block-size")
        {
            Description = "Uncompressed bytes per block (4 KiB to 64 MiB).",
            DefaultValueFactory = _ => new PackOptions().BlockSize,
        };
        var level = new Option<int>("--level")
        {
            Description = "LZ4 level: 0 fast (default), 3-9 high compression, 10-12 optimal; higher packs smaller and slower, loads as fast.",
            DefaultValueFactory = _ => new PackOptions().Level,
        };
        var command = new Command("pack", "Pack the files of a folder into one file of independently LZ4-compressed blocks.")
        {
            directory, file, blockSize, level,
        };
        command.SetAction((parse, cancellationToken) => PackFailures.RunAsync(async () =>
        {
            var options = new PackOptions { BlockSize = parse.GetValue(blockSize), Level = parse.GetValue(level) };
            string root = parse.GetValue(directory)!;
            string pack = parse.GetValue(file)!;
            long start = Stopwatch.GetTimestamp();
            await PackWriter.CreateAsync(pack, root, options, cancellationToken);
            double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
            await using PackReader reader = await PackReader.OpenAsync(pack, cancellationToken);
            long packed = new FileInfo(pack).Length;
            Console.WriteLine(
                $"{reader.Entries.Count:N0} files, {reader.DataLength:N0} bytes -> {packed:N0} bytes "
                + $"({(reader.DataLength == 0 ? 1 : (double)packed / reader.DataLength):P1}) in {seconds:F3} s, {reader.DataLength / seconds / 1e6:N1} MB/s");
            return ExitCodes.Success;
        }));
        return command;
    }
}
