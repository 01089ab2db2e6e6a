namespace FastLoad.Shared;

/// <summary>
/// A way of loading a list of files; returns the bytes it read, so that every way can be checked to do the same work.
/// <paramref name="Key"/> names it on a command line (a comparison runs each way in a child process of its own).
/// </summary>
internal sealed record LoadMethod(string Key, string Name, Func<IReadOnlyList<string>, CancellationToken, Task<long>> Run);

/// <summary>The ways the tool compares: what an application would write, FastLoad, and the device's limit.</summary>
internal static class LoadMethods
{
    public static LoadMethod Sequential { get; } = new("loop", "Sequential File.ReadAllBytes", (paths, cancellationToken) =>
    {
        long total = 0;
        foreach (string path in paths)
        {
            cancellationToken.ThrowIfCancellationRequested();
            total += File.ReadAllBytes(path).Length;
        }

        return Task.FromResult(total);
    });

    public static LoadMethod ParallelForEachDefault { get; } = new("parallel", "Parallel.ForEachAsync + ReadAllBytesAsync", async (paths, cancellationToken) =>
    {
        long total = 0;
        await Parallel.ForEachAsync(paths, cancellationToken, async (path, token) =>
        {
            byte[] bytes = await File.ReadAllBytesAsync(path, token);
            Interlocked.Add(ref total, bytes.Length);
        });
        return total;
    });

    public static LoadMethod FastLoadAutomatic { get; } = FastLoad("fastload", "FastLoad (automatic)", static () => new FileLoaderOptions());

    public static LoadMethod FastLoadOnThreadPool { get; } = FastLoad(
        "fastload-pool", "FastLoad (automatic, on the thread pool)", static () => new FileLoaderOptions { Scheduling = IoScheduling.ThreadPool });

    /// <summary>Raw threads calling libc: the device's limit, not a way an application loads (see <see cref="ReferenceReader"/>).</summary>
    public static LoadMethod Reference { get; } = new(
        "reference",
        $"Reference: {ReferenceReader.DefaultThreads} threads, libc open/fstat/pread/close",
        (paths, _) => Task.FromResult(ReferenceReader.Read(paths, ReferenceReader.DefaultThreads)));

    /// <summary>What <c>demo</c> and <c>bench</c> compare: the loop first (the baseline), the reference last where it runs.</summary>
    public static LoadMethod[] Compared { get; } = ReferenceReader.IsSupported
        ? [Sequential, ParallelForEachDefault, FastLoadAutomatic, Reference]
        : [Sequential, ParallelForEachDefault, FastLoadAutomatic];

    public static LoadMethod? Find(string key) =>
        Array.Find([Sequential, ParallelForEachDefault, FastLoadAutomatic, FastLoadOnThreadPool, Reference], method => method.Key == key);

    /// <remarks>
    /// The options and the loader are made inside the measurement: in a new process their construction is part of the
    /// first load's cost, as in an application's start-up code.
    /// </remarks>
    public static LoadMethod FastLoad(string key, string name, Func<FileLoaderOptions> options) => new(key, name, async (paths, cancellationToken) =>
    {
        var loader = new FileLoader(options());
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
