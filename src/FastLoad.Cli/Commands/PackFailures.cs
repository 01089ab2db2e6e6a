namespace FastLoad.Cli.Commands;

/// <summary>Runs a pack command and turns the errors a user can cause (a bad pack, a missing file) into a message and exit code 1.</summary>
internal static class PackFailures
{
    public static async Task<int> RunAsync(Func<Task<int>> command)
    {
        try
        {
            return await command();
        }
        catch (Exception ex) when (ex is IOException or InvalidDataException or UnauthorizedAccessException or KeyNotFoundException)
        {
            Console.Error.WriteLine($"fastload: {ex.Message}");
            return ExitCodes.SomeFailed;
        }
        catch (ArgumentException ex)
        {
            Console.Error.WriteLine($"fastload: {ex.Message}");
            return ExitCodes.Usage;
        }
    }
}
