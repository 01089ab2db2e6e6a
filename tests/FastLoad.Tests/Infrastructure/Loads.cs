namespace FastLoad.Tests.Infrastructure;

/// <summary>Helpers that drive a load to the end and keep what the tests compare.</summary>
internal static class Loads
{
    /// <summary>Loads through the enumerable, copying each file's bytes (or error) and disposing it at once.</summary>
    public static async Task<List<(string Path, int Index, byte[]? Data, Exception? Error)>> CollectAsync(
        FileLoader loader, FileSet files, CancellationToken cancellationToken = default)
    {
        var results = new List<(string, int, byte[]?, Exception?)>();
        await foreach (LoadedFile file in loader.LoadAsync(files, cancellationToken))
        {
            using (file)
            {
                results.Add((file.Path, file.Index, file.Succeeded ? file.Data.ToArray() : null, file.Error));
            }
        }

        return results;
    }

    public static bool IsRoot => !OperatingSystem.IsWindows() && Environment.UserName == "root";
}
