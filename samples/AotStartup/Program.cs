// AotStartup: the first load of a folder in a fresh process, as application start-up code does it, timed inside the
// process and printed as one JSON line. Publish it with NativeAOT (see README.md) and run it once per measurement.
//
//   AotStartup fastload <folder>   FileLoader, the first and only load of this process
//   AotStartup loop <folder>       File.ReadAllBytes in a loop, the baseline, in the same binary
//   AotStartup evict <folder>      drop the folder's files from the page cache (Linux), for a cold run after it

using System.Diagnostics;
using System.Globalization;
using FastLoad;
using FastLoad.Shared;

// First statement: the clock the whole start-up is measured against.
long mainStart = Stopwatch.GetTimestamp();

if (args is not [string mode, string folder] || !Directory.Exists(folder))
{
    Console.Error.WriteLine("usage: AotStartup fastload|loop|evict <folder>");
    return 2;
}

if (mode == "evict")
{
    // A separate process, so that the timed run pays for nothing but its own start-up and load.
    if (!PageCache.IsEvictionSupported)
    {
        Console.Error.WriteLine("AotStartup: evicting files from the page cache is supported on Linux only.");
        return 2;
    }

    foreach (string path in Directory.EnumerateFiles(folder, "*", SearchOption.AllDirectories))
    {
        PageCache.Evict(path);
    }

    return 0;
}

long loadStart = Stopwatch.GetTimestamp();
int files = 0;
long bytes = 0;
int failures = 0;
switch (mode)
{
    case "fastload":
        // Both ways list the folder themselves; the consumer only counts, so the time is the load's.
        var loader = new FileLoader(new FileLoaderOptions { ErrorHandling = LoadErrorHandling.Collect });
        LoadSummary summary = await loader.LoadAsync(FileSet.FromDirectory(folder), (_, _) => ValueTask.CompletedTask);
        (files, bytes, failures) = (summary.FileCount, summary.ByteCount, summary.Failures.Count);
        break;

    case "loop":
        foreach (string path in Directory.EnumerateFiles(folder, "*", SearchOption.AllDirectories))
        {
            bytes += File.ReadAllBytes(path).Length;
            files++;
        }

        break;

    default:
        Console.Error.WriteLine($"AotStartup: unknown mode '{mode}'; use fastload, loop or evict.");
        return 2;
}

long end = Stopwatch.GetTimestamp();

// Formatted by hand: System.Text.Json would add its own start-up to the JIT runs.
Console.WriteLine(string.Create(
    CultureInfo.InvariantCulture,
    $$"""{"mode":"{{mode}}","files":{{files}},"bytes":{{bytes}},"failures":{{failures}},"loadMs":{{Stopwatch.GetElapsedTime(loadStart, end).TotalMilliseconds:F3}},"sinceMainMs":{{Stopwatch.GetElapsedTime(mainStart, end).TotalMilliseconds:F3}}}"""));
return failures == 0 ? 0 : 1;
