using System.Collections.Concurrent;
using System.Globalization;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace FastLoad.Benchmarks;

/// <summary>
/// Throughput columns computed from the median time and the case's <see cref="Workload"/>, and the physical limit:
/// fio on the same files, and each scenario as a ratio to it. Plain numbers, so the CSV feeds the charts directly.
/// </summary>
internal sealed class WorkloadColumn : IColumn
{
    private static readonly ConcurrentDictionary<string, Workload?> Workloads = new();
    private readonly Func<Workload, double, string> _value;

    private WorkloadColumn(string name, string legend, Func<Workload, double, string> value)
    {
        ColumnName = name;
        Legend = legend;
        _value = value;
    }

    public static IColumn[] All { get; } =
    [
        new WorkloadColumn("MB/s", "Bytes read per second at the median time, in 10^6 bytes", (work, seconds) => Format(work.Bytes / seconds / 1e6)),
        new WorkloadColumn("ops/s", "Files loaded (or reads, for ReadSize) per second at the median time", (work, seconds) => Format(work.Operations / seconds)),
        new WorkloadColumn("fio MB/s", "The same bytes at the speed fio reaches on the same files (io_uring, O_DIRECT), in 10^6 bytes per second",
            (work, _) => FioSeconds(work) is double fio ? Format(work.Bytes / fio / 1e6) : NoFio),
        new WorkloadColumn("vs fio", "Scenario throughput / fio throughput on the same work: 1.00 = the device's limit as fio measures it",
            (work, seconds) => FioSeconds(work) is double fio ? (fio / seconds).ToString("0.00", CultureInfo.InvariantCulture) : NoFio),
        new WorkloadColumn("fio basis", "What fio ran (its IOPS applied to the device I/Os the work needs)",
            (work, _) => FioProbe.Measure(work.Fio)?.Basis ?? NoFio),
    ];

    public static string NoFio => FioProbe.IsInstalled ? "fio failed" : "no fio";

    public string Id => nameof(WorkloadColumn) + "." + ColumnName;

    public string ColumnName { get; }

    public bool AlwaysShow => true;

    public ColumnCategory Category => ColumnCategory.Custom;

    public int PriorityInCategory => 0;

    public bool IsNumeric => true;

    public UnitType UnitType => UnitType.Dimensionless;

    public string Legend { get; }

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, summary.Style);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
    {
        double? medianNanoseconds = summary[benchmarkCase]?.ResultStatistics?.Median;
        Workload? workload = Describe(benchmarkCase);
        return medianNanoseconds is > 0 && workload is not null ? _value(workload, medianNanoseconds.Value / 1e9) : "-";
    }

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public bool IsAvailable(Summary summary) => true;

    public override string ToString() => ColumnName;

    private static string Format(double value) => value.ToString(value < 100 ? "0.00" : "0", CultureInfo.InvariantCulture);

    private static double? FioSeconds(Workload workload) =>
        FioProbe.Measure(workload.Fio) is { Iops: > 0 } result ? workload.Fio.IoCount / result.Iops : null;

    /// <summary>Builds the benchmark object with the case's parameter values and asks it what it reads.</summary>
    private static Workload? Describe(BenchmarkCase benchmarkCase)
    {
        Type type = benchmarkCase.Descriptor.Type;
        string key = type.FullName + "|" + benchmarkCase.Parameters.DisplayInfo;
        return Workloads.GetOrAdd(key, _ =>
        {
            if (Activator.CreateInstance(type) is not IWorkloadSource source)
            {
                return null;
            }

            foreach (var parameter in benchmarkCase.Parameters.Items.Where(item => !item.IsArgument))
            {
                type.GetProperty(parameter.Name)?.SetValue(source, parameter.Value);
            }

            return source.DescribeWorkload();
        });
    }
}
