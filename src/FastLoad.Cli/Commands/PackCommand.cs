using System.CommandLine;
using System.Diagnostics;

namespace FastLoad.Cli.Commands;

/// <summary><c>fastload pack &lt;dir&gt; &lt;file&gt;</c>: pack every file under a folder into one LZ4-compressed pack.</summary>
internal static class PackCommand
{
    public static Command Create()
    {
        var directory = new Argument<string>("dir") { Description = "The folder to pack (recursively; entry names are relative to it)." }.MustExist();
        var file = new Argument<string>("file") { Description = "The pack to write (conventionally *.fpk); replaced if it exists." };
        var blockSize = new Option<int>("--block-size")
        {
            Description = "Uncompressed bytes per block (4 KiB to 64 MiB).",
            DefaultValueFactory = _ => new PackOptions().BlockSize,
        };
        var level = new Option<int>("--level")
        {
            Description = "LZ4 level: 0 fast, 3-9 high compression (default 3), 10-12 optimal; higher packs smaller and slower.",
            DefaultValueFactory = _ => new PackOptions().Level,
        };
        var skipSpecialFiles = new Option<bool>("--skip-special-files")
        {
            Description = "Leave out FIFOs, sockets, devices and dangling symbolic links, with a warning each, instead of failing.",
        };
        var command = new Command("pack", "Pack the files of a folder into one file of independently LZ4-compressed blocks.")
        {
            directory, file, blockSize, level, skipSpecialFiles,
        };
        command.SetAction((parse, cancellationToken) => PackFailures.RunAsync(async () =>
        {
            var options = new PackOptions
            {
                BlockSize = parse.GetValue(blockSize), Level = parse.GetValue(level), SkipSpecialFiles = parse.GetValue(skipSpecialFiles),
            };
            string root = parse.GetValue(directory)!;
            string pack = parse.GetValue(file)!;
            long start = Stopwatch.GetTimestamp();
            PackSummary summary = await PackWriter.CreateAsync(pack, root, options, cancellationToken);
            double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
            foreach (LoadFailure skipped in summary.Skipped)
            {
                Console.Error.WriteLine($"warning: {skipped.Exception.Message}");
            }

            await using PackReader reader = await PackReader.OpenAsync(pack, cancellationToken);
            long packed = new FileInfo(pack).Length;
            Console.WriteLine(
                $"{reader.Entries.Count:N0} files, {reader.DataLength:N0} bytes -> {packed:N0} bytes "
                + $"({(reader.DataLength == 0 ? 1 : (double)packed / reader.DataLength):P1}) in {seconds:F3} s, {reader.DataLength / seconds / 1e6:N1} MB/s");
            WriteDotPrefixedNotes(reader.Entries.Select(entry => entry.Name).ToList());
            return ExitCodes.Success;
        }));
        return command;
    }

    /// <summary>
    /// Says what the pack holds that a site moved from a folder to the pack should know about: what the providers hide
    /// by default (ExclusionFilters.Sensitive), and what they still serve by path from a hidden folder.
    /// </summary>
    private static void WriteDotPrefixedNotes(List<string> names)
    {
        const int Shown = 10;
        static bool IsDotPrefixed(string segment) => segment.StartsWith('.');

        List<string> hidden = names.Where(name => IsDotPrefixed(name[(name.LastIndexOf('/') + 1)..])).ToList();
        List<string> underHidden = names.Except(hidden).Where(name => name.Split('/')[..^1].Any(IsDotPrefixed)).ToList();
        static string List(List<string> names) =>
            string.Join(", ", names.Take(Shown)) + (names.Count > Shown ? $" and {names.Count - Shown:N0} more" : string.Empty);

        if (hidden.Count > 0)
        {
            Console.WriteLine(
                $"note: {hidden.Count:N0} dot-prefixed entries, which PackFileProvider, like PhysicalFileProvider, hides by default "
                + $"(ExclusionFilters.Sensitive) and serves with ExclusionFilters.None: {List(hidden)}");
        }

        if (underHidden.Count > 0)
        {
            Console.WriteLine(
                $"note: {underHidden.Count:N0} entries in dot-prefixed folders, which both providers leave out of listings but, "
                + $"like PhysicalFileProvider, serve by path: {List(underHidden)}");
        }
    }
}
