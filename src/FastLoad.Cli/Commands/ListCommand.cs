using System.CommandLine;

namespace FastLoad.Cli.Commands;

/// <summary><c>fastload list &lt;file&gt;</c>: print a pack's entries under a header: length, content hash (XXH64), name.</summary>
internal static class ListCommand
{
    public static Command Create()
    {
        var file = new Argument<string>("file") { Description = "The pack to list." }.MustExist();
        var command = new Command("list", "List the entries of a pack: length, content hash (XXH64) and name.") { file };
        command.SetAction((parse, cancellationToken) => PackFailures.RunAsync(async () =>
        {
            await using PackReader reader = await PackReader.OpenAsync(parse.GetValue(file)!, cancellationToken);
            Console.WriteLine($"{"length",12}  {"xxh64",-16}  name");
            foreach (PackEntry entry in reader.Entries)
            {
                Console.WriteLine($"{entry.Length,12}  {entry.ContentHash:x16}  {entry.Name}");
            }

            return ExitCodes.Success;
        }));
        return command;
    }
}
