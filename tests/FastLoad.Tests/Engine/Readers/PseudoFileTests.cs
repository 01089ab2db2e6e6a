using FastLoad.Engine;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Loading;

/// <summary>
/// Pseudo files report no length and have content (/proc, /sys): read to their end in steps, charged to the budget as
/// their buffer grows, and refused, by name, when they hold more than the whole budget.
/// </summary>
public class PseudoFileTests : TempDirectoryTestBase
{
    // Several megabytes, reported as 0 bytes, and the same from one read to the next.
    private const string KernelSymbols = "/proc/kallsyms";

    public static TheoryData<IoScheduling> Schedulings => [IoScheduling.IoUring, IoScheduling.DedicatedThreads, IoScheduling.ThreadPool];

    [LinuxTheory("/proc files, whose stat says 0 bytes")]
    [MemberData(nameof(Schedulings))]
    public async Task Load_PseudoFileOfManySteps_ArrivesWholeWithinTheBudget(IoScheduling scheduling)
    {
        byte[] expected = ReadSymbols();
        const long Budget = 64L * 1024 * 1024;
        List<string> paths = [.. Enumerable.Range(0, 30).Select(i => WriteFile($"f{i:D2}.bin", 20_000, seed: i))];
        paths.Insert(7, KernelSymbols);

        var loaded = await Loads.CollectAsync(new FileLoader(new FileLoaderOptions { Scheduling = scheduling, MemoryBudget = Budget }), FileSet.FromPaths(paths));

        Assert.Equal(expected, loaded.Single(file => file.Path == KernelSymbols).Data);
        Assert.All(loaded.Where(file => file.Path != KernelSymbols), file => Assert.Equal(Contents(20_000, file.Index - (file.Index > 7 ? 1 : 0)), file.Data));
    }

    [LinuxTheory("/proc files, whose stat says 0 bytes")]
    [MemberData(nameof(Schedulings))]
    public async Task Load_PseudoFileLargerThanTheBudget_FailsNamingItAndTheBudgetAndLoadsTheOthers(IoScheduling scheduling)
    {
        Assert.True(ReadSymbols().Length > 1 << 20, "the test needs a pseudo file of more than 1 MiB");
        List<string> paths = [.. Enumerable.Range(0, 10).Select(i => WriteFile($"f{i}.bin", 10_000, seed: i)), KernelSymbols];
        var loader = new FileLoader(new FileLoaderOptions
        {
            Scheduling = scheduling,
            MemoryBudget = 1 << 20,
            ErrorHandling = LoadErrorHandling.Collect,
        });

        LoadSummary summary = await loader.LoadAsync(FileSet.FromPaths(paths), (_, _) => ValueTask.CompletedTask);

        LoadFailure failure = Assert.Single(summary.Failures);
        Assert.Equal(KernelSymbols, failure.Path);
        Assert.Contains(KernelSymbols, failure.Exception.Message, StringComparison.Ordinal);
        Assert.Contains("memory budget of 1,048,576 bytes", failure.Exception.Message, StringComparison.Ordinal);
        Assert.Equal(10, summary.FileCount);
        Assert.InRange(summary.PeakBytesInFlight, 1, 1 << 20);
    }

    private static byte[] ReadSymbols()
    {
        using var file = new FileStream(KernelSymbols, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, bufferSize: 0);
        using var contents = new MemoryStream();
        file.CopyTo(contents);
        return contents.ToArray();
    }
}
