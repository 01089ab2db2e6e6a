namespace FastLoad.Benchmarks;

/// <summary>What fio measured: I/Os per second and bytes per second, and in words how (<see cref="Basis"/>).</summary>
internal sealed record FioResult(double Iops, string Basis);
