namespace FastLoad.Benchmarks;

/// <summary>
/// What one benchmark case reads, described from its parameters alone, so that the host process can turn a median
/// time into throughput and compare it with fio on the same files without running the benchmark itself.
/// </summary>
/// <param name="Bytes">The bytes every scenario of the case returns.</param>
/// <param name="Operations">Files loaded, or reads issued (seed 004); the unit of the ops/s column.</param>
/// <param name="Fio">The fio job that measures the device on the same files, and how many device I/Os the work needs.</param>
internal sealed record Workload(long Bytes, long Operations, FioJob Fio);
