namespace FastLoad.Benchmarks.Tests;

/// <summary>The benchmark data settings are process-wide, so every test class shares one fixture and none runs in parallel.</summary>
[CollectionDefinition(Name)]
public sealed class BenchmarkDataCollection : ICollectionFixture<BenchmarkDataFixture>
{
    public const string Name = "Benchmark data";
}
