using System.Reflection;
using BenchmarkDotNet.Attributes;

namespace FastLoad.Benchmarks.Tests;

/// <summary>The names issue 3 and the seeds use stay in the suite (what --list flat shows), so tables can be compared with the seed's.</summary>
public sealed class ScenarioNameTests
{
    public static TheoryData<Type, string> Names()
    {
        var names = new TheoryData<Type, string>();
        string[] manyFiles =
        [
            "Sequential", "SyncAsParallel", "ReadAllAsParallel", "Async", "Async2", "NewThread", "ParallelForEachAsync",
            "ParallelForEachAsyncTuned8", "ParallelForEachAsyncTuned32", "ParallelForEachAsyncTuned128", "FastLoadAutomatic",
            .. new[] { 4, 8, 16, 24, 32, 64, 128, 256 }.Select(n => $"AsyncWithMaxParallelCount{n}"),
        ];
        string[] largeFile =
        [
            "FileStreamLoop", "RandomAccessRead", "MemoryMappedWindows", "MemoryMappedOneView", "Lz4CompressedCopy", "FastLoadAutomatic",
            .. Enumerable.Range(1, 16).Where(n => (n & (n - 1)) == 0).Select(n => $"AsyncInFlight{n}"),
        ];
        foreach (string name in manyFiles)
        {
            names.Add(typeof(ManyFilesBenchmarks), name);
        }

        foreach (string name in largeFile)
        {
            names.Add(typeof(LargeFileBenchmarks), name);
        }

        names.Add(typeof(OneVsManyBenchmarks), "QueueDepthEqualsFileCount");
        names.Add(typeof(ReadSizeBenchmarks), "RandomReads");
        names.Add(typeof(ReadSizeBenchmarks), "SequentialReads");
        return names;
    }

    [Theory]
    [MemberData(nameof(Names))]
    public void Suite_ScenarioName_IsABenchmark(Type family, string name)
    {
        ArgumentNullException.ThrowIfNull(family);
        Assert.True(family.GetMethod(name)?.IsDefined(typeof(BenchmarkAttribute)) == true, $"{family.Name}.{name} is not a [Benchmark].");
    }

    [Fact]
    public void Suite_EachFamily_HasExactlyOneBaseline()
    {
        foreach (Type family in new[] { typeof(ManyFilesBenchmarks), typeof(LargeFileBenchmarks), typeof(OneVsManyBenchmarks), typeof(ReadSizeBenchmarks) })
        {
            Assert.Single(family.GetMethods(), method => method.GetCustomAttribute<BenchmarkAttribute>()?.Baseline == true);
        }
    }
}
