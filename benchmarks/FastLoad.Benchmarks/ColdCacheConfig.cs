using System.Globalization;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Exporters.Csv;
using BenchmarkDotNet.Exporters.Json;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Reports;
using Perfolizer.Horology;

namespace FastLoad.Benchmarks;

/// <summary>
/// Cold-cache measurement: one invocation per iteration (RunStrategy.Monitoring), each preceded by an
/// [IterationSetup] that evicts every file, so every iteration reads from the device. Medians and ratios to the
/// baseline of the same run are what to quote; timings on a shared VM are noisy.
/// </summary>
internal static class ColdCacheConfig
{
    /// <summary>Measured iterations per case: FASTLOAD_BENCH_ITERATIONS, or 7.</summary>
    private static int IterationCount =>
        int.TryParse(Environment.GetEnvironmentVariable("FASTLOAD_BENCH_ITERATIONS"), out int count) && count > 0 ? count : 7;

    /// <summary>Comma separated, invariant numbers, units in the headers only: what the chart script reads.</summary>
    private static CsvExporter PlainCsv { get; } = new(
        CsvSeparator.Comma,
        new SummaryStyle(CultureInfo.InvariantCulture, printUnitsInHeader: true, sizeUnit: null, TimeUnit.Millisecond, printUnitsInContent: false, printZeroValuesInContent: true));

    /// <summary>
    /// FASTLOAD_BENCH_FRESH_PROCESS=1: every measurement is the first load in a new process (BenchmarkDotNet's
    /// ColdStart, one launch per iteration), JIT and fresh memory included, as an application's start-up sees it.
    /// </summary>
    private static bool FreshProcess => Environment.GetEnvironmentVariable("FASTLOAD_BENCH_FRESH_PROCESS") == "1";

    public static IConfig Create(string[] args)
    {
        Job cold = FreshProcess
            ? Job.Default
                .WithStrategy(RunStrategy.ColdStart)
                .WithLaunchCount(IterationCount)
                .WithWarmupCount(0)
                .WithIterationCount(1)
                .WithInvocationCount(1)
                .WithUnrollFactor(1)
                .WithId("FreshProcess")
            : Job.Default
                .WithStrategy(RunStrategy.Monitoring)
                .WithLaunchCount(1)
                .WithWarmupCount(1)
                .WithIterationCount(IterationCount)
                .WithInvocationCount(1)
                .WithUnrollFactor(1)
                .WithId("Cold");

        // A job named on the command line (e.g. --job Dry for CI) replaces the cold job rather than running beside it.
        bool jobOnCommandLine = args.Any(arg => arg is "--job" or "-j" || arg.StartsWith("--job=", StringComparison.Ordinal));
        return ManualConfig.CreateEmpty()
            .AddJob(jobOnCommandLine ? [] : [cold])
            .AddLogger(BenchmarkDotNet.Loggers.ConsoleLogger.Default)
            .AddColumnProvider(DefaultColumnProviders.Instance)
            .AddColumn(StatisticColumn.Median, BaselineRatioColumn.RatioMean)
            .AddColumn(WorkloadColumn.All)
            .AddDiagnoser(MemoryDiagnoser.Default)
            .AddExporter(MarkdownExporter.GitHub, PlainCsv, JsonExporter.Full)
            .WithSummaryStyle(SummaryStyle.Default.WithRatioStyle(RatioStyle.Trend))
            .WithOptions(ConfigOptions.JoinSummary);
    }
}
