namespace FastLoad.Shared;

/// <summary>A way of loading a list of files; returns the bytes it read, so that every way can be checked to do the same work.</summary>
internal sealed record LoadMethod(string Name, Func<IReadOnlyList<string>, CancellationToken, Task<long>> Run);

/// <summary>The ways the tool compares: what an application would write, and FastLoad.</summary>
internal static class LoadMethods
{
    public static LoadMethod Sequential { get; } = new("Sequential File.ReadAllBytes", (paths, cancellationToken) =>
    {
        long total = 0;
        foreach (string path in paths)
        {
            cancellationToken.ThrowIfCancellationRequested();
            total += File.ReadAllBytes(path).Length;
        }

        return Task.FromResult(total);
    });

    public static LoadMethod ParallelForEachDefault { get; } = new("Parallel.ForEachAsync + ReadAllBytesAsync", async (paths, cancellationToken) =>
    {
        long total = 0;
        await Parallel.ForEachAsync(paths, cancellationToken, async (path, token) =>
        {
            byte[] bytes = await File.ReadAllBytesAsync(path, token);
            Interlocked.Add(ref total, bytes.Length);
        });
        return total;
    });

    public static LoadMethod FastLoadAutomatic { get; } = FastLoad("FastLoad (automatic)", new FileLoaderOptions());

    public static LoadMethod FastLoadOnThreadPool { get; } = FastLoad(
        "FastLoad (automatic, on the thread pool)", new FileLoaderOptions { Scheduling = IoScheduling.ThreadPool });

    public static LoadMethod[] Demo { get; } = [Sequential, ParallelForEachDefault, FastLoadAutomatic, FastLoadOnThreadPool];

    public static LoadMethod FastLoad(string name, FileLoaderOptions options)
    {
        var loader = new FileLoader(options);
        return new LoadMethod(name, async (paths, cancellationToken) =>
        {
            long total = 0;
            await foreach (LoadedFile file in loader.LoadAsync(FileSet.FromPaths(paths), cancellationToken))
            {
                using (file)
                {
                    total += file.Length;
                }
            }

            return total;
        });
    }
}
