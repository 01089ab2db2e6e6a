using FastLoad;
using Microsoft.Extensions.Configuration;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>
/// The <see cref="FileLoaderOptions"/> that configuration can set (everything but the code-only BufferPool), bound
/// by the source-generated binder; values that are present are copied onto the options.
/// </summary>
internal sealed class FileLoaderConfiguration
{
    public int? MaxDegreeOfParallelism { get; set; }

    public long? MemoryBudget { get; set; }

    public LoadOrdering? Ordering { get; set; }

    public LoadErrorHandling? ErrorHandling { get; set; }

    public IoScheduling? Scheduling { get; set; }

    public int? ConsumerParallelism { get; set; }

    public bool? Adaptive { get; set; }

    public StorageKind? Storage { get; set; }

    public PhysicalOrder? PhysicalOrder { get; set; }

    public FileBuffering? Buffering { get; set; }

    public bool? UseMemoryMapping { get; set; }

    public static void Bind(IConfiguration configuration, FileLoaderOptions options)
    {
        var bound = new FileLoaderConfiguration();
        configuration.Bind(bound);
        options.MaxDegreeOfParallelism = bound.MaxDegreeOfParallelism ?? options.MaxDegreeOfParallelism;
        options.MemoryBudget = bound.MemoryBudget ?? options.MemoryBudget;
        options.Ordering = bound.Ordering ?? options.Ordering;
        options.ErrorHandling = bound.ErrorHandling ?? options.ErrorHandling;
        options.Scheduling = bound.Scheduling ?? options.Scheduling;
        options.ConsumerParallelism = bound.ConsumerParallelism ?? options.ConsumerParallelism;
        options.Adaptive = bound.Adaptive ?? options.Adaptive;
        options.Storage = bound.Storage ?? options.Storage;
        options.PhysicalOrder = bound.PhysicalOrder ?? options.PhysicalOrder;
        options.Buffering = bound.Buffering ?? options.Buffering;
        options.UseMemoryMapping = bound.UseMemoryMapping ?? options.UseMemoryMapping;
    }
}
