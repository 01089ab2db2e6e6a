using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Exporters.Csv;
using BenchmarkDotNet.Exporters.Json;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Reports;

namespace FastLoad.Benchmarks;

/// <summary>
/// Cold-cache measurement: one invocation per iteration (RunStrategy.Monitoring), each preceded by an
/// [IterationSetup] that evicts every file, so every iteration reads from the device. Medians and ratios to the
/// baseline of the same run are what to quote; timings on a shared VM are noisy.
/// </summary>
internal static class ColdCacheConfig
{
    public static IConfig Create(string[] args)
    {
        Job cold = Job.Default
            .WithStrategy(RunStrategy.Monitoring)
            .WithLaunchCount(1)
            .WithWarmupCount(1)
            .WithIterationCount(7)
            .WithInvocationCount(1)
            .WithUnrollFactor(1)
            .WithId("Cold");

        // An explicit --job (say --job Dry, for a smoke run) replaces the cold job instead of running beside it.
        bool jobGiven = args.Any(arg => arg is "--job" or "-j");
        return ManualConfig.CreateEmpty()
            .AddJob(jobGiven ? [] : [cold])
            .AddLogger(BenchmarkDotNet.Loggers.ConsoleLogger.Default)
            .AddColumnProvider(DefaultColumnProviders.Instance)
            .AddColumn(StatisticColumn.Median, BaselineRatioColumn.RatioMean)
            .AddDiagnoser(MemoryDiagnoser.Default)
            .AddExporter(MarkdownExporter.GitHub, CsvExporter.Default, JsonExporter.Full)
            .WithSummaryStyle(SummaryStyle.Default.WithRatioStyle(RatioStyle.Trend))
            .WithOptions(ConfigOptions.JoinSummary);
    }
}
