using System.Reflection;
using BenchmarkDotNet.Attributes;

namespace FastLoad.Benchmarks.Tests;

/// <summary>
/// Runs a benchmark object the way BenchmarkDotNet does, once per scenario: [GlobalSetup], then for every [Benchmark]
/// method and each of its [Arguments], [IterationSetup] and the method. Found by reflection, so a new scenario is
/// checked without anyone remembering to add it here.
/// </summary>
internal static class ScenarioRunner
{
    public static IReadOnlyList<(string Scenario, long Bytes)> RunAll(object benchmark)
    {
        Type type = benchmark.GetType();
        InvokeAll<GlobalSetupAttribute>(benchmark);
        var results = new List<(string, long)>();
        foreach (MethodInfo method in type.GetMethods().Where(method => method.IsDefined(typeof(BenchmarkAttribute))))
        {
            object?[][] argumentSets = [.. method.GetCustomAttributes<ArgumentsAttribute>().Select(arguments => arguments.Values)];
            foreach (object?[] arguments in argumentSets.Length == 0 ? [[]] : argumentSets)
            {
                InvokeAll<IterationSetupAttribute>(benchmark);
                object? result = method.Invoke(benchmark, arguments);
                long bytes = result switch
                {
                    long value => value,
                    Task<long> task => task.GetAwaiter().GetResult(),
                    _ => throw new InvalidOperationException($"{type.Name}.{method.Name} must return the bytes it read (long or Task<long>)."),
                };
                results.Add(($"{method.Name}({string.Join(", ", arguments)})", bytes));
            }
        }

        InvokeAll<GlobalCleanupAttribute>(benchmark);
        return results;
    }

    private static void InvokeAll<TAttribute>(object benchmark)
        where TAttribute : Attribute
    {
        foreach (MethodInfo method in benchmark.GetType().GetMethods().Where(method => method.IsDefined(typeof(TAttribute))))
        {
            method.Invoke(benchmark, null);
        }
    }
}
