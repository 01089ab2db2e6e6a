namespace FastLoad.Benchmarks.Tests;

/// <summary>
/// Points the benchmark data at a temporary folder with tiny groups (scale 0.002: 20 files of the 1B group) for the
/// whole test run, and deletes it afterwards. Dispose never throws.
/// </summary>
public sealed class BenchmarkDataFixture : IDisposable
{
    public BenchmarkDataFixture()
    {
        Root = Path.Combine(Path.GetTempPath(), $"fastload-bench-tests-{Guid.NewGuid():N}");
        BenchmarkData.Root = Root;
        BenchmarkData.Scale = 0.002;
    }

    public string Root { get; }

    public void Dispose()
    {
        try
        {
            Directory.Delete(Root, recursive: true);
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            // A leftover temporary folder is not worth failing a test run for.
        }
    }
}
