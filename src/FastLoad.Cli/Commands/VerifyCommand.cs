using System.CommandLine;

namespace FastLoad.Cli.Commands;

/// <summary><c>fastload verify &lt;file&gt;</c>: check the index, every block's hash, decode every block and check every entry's hash.</summary>
internal static class VerifyCommand
{
    public static Command Create()
    {
        var file = new Argument<string>("file") { Description = "The pack to check." }.MustExist();
        var command = new Command(
            "verify", "Check a pack: header, footer, index, every block's hash and decoding, and every entry's hash. Exit code 1 if anything is wrong.")
        {
            file,
        };
        command.SetAction((parse, cancellationToken) => PackFailures.RunAsync(async () =>
        {
            await using PackReader reader = await PackReader.OpenAsync(parse.GetValue(file)!, new PackReaderOptions { VerifyEntryHashes = true }, cancellationToken);
            int count = 0;
            await foreach (LoadedFile entry in reader.LoadAllAsync(cancellationToken))
            {
                entry.Dispose();
                count++;
            }

            Console.WriteLine($"ok: {count:N0} entries, {reader.DataLength:N0} bytes");
            return ExitCodes.Success;
        }));
        return command;
    }
}
