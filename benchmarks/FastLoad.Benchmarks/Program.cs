using BenchmarkDotNet.Running;

namespace FastLoad.Benchmarks;

internal static class Program
{
    /// <summary>
    /// Runs the suite: <c>dotnet run -c Release -- --filter *</c>; <c>--list flat</c> names every scenario.
    /// Exits 1 when a benchmark failed, so that CI notices.
    /// </summary>
    private static int Main(string[] args)
    {
#if DEBUG
        Console.Error.WriteLine("Warning: a Debug build measures unoptimised code. Use: dotnet run -c Release --project benchmarks/FastLoad.Benchmarks");
#endif
        if (!FioProbe.IsInstalled)
        {
            Console.WriteLine("fio is not installed: no physical limit in this run (the fio columns say \"no fio\").");
        }

        var summaries = BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, ColdCacheConfig.Create(args));
        return summaries.Any(summary => summary.HasCriticalValidationErrors || summary.Reports.Any(report => !report.Success)) ? 1 : 0;
    }
}
