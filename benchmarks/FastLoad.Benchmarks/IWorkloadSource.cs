namespace FastLoad.Benchmarks;

/// <summary>A benchmark class whose cases can describe their work (see <see cref="Workload"/>).</summary>
internal interface IWorkloadSource
{
    /// <summary>Describes the case given by the current parameter values; may generate the data set if it is missing.</summary>
    Workload DescribeWorkload();
}
