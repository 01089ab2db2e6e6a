using System.Diagnostics.Metrics;
using FastLoad.Engine;
using FastLoad.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace FastLoad.Tests.Reliability;

/// <summary>
/// A logging sink or a metrics listener that throws (full, broken, closed) never decides what happens to a file:
/// every file arrives, every buffer goes back, and a tight budget does not make the load wait for bytes that a lost
/// file kept.
/// </summary>
public class DiagnosticFailureTests : TempDirectoryTestBase
{
    private const int FileCount = 300;
    private static readonly TimeSpan NoHang = TimeSpan.FromSeconds(60);

    public DiagnosticFailureTests()
    {
        var random = new Random(23);
        for (int i = 0; i < FileCount; i++)
        {
            WriteFile($"d{i % 3}/f{i:D3}.bin", random.Next(10_000, 100_000), seed: i);
        }
    }

    public static TheoryData<IoScheduling, bool> Readers => new()
    {
        { IoScheduling.IoUring, false },
        { IoScheduling.IoUring, true }, // The kernel refuses the ring, as in a container: reader threads read.
        { IoScheduling.DedicatedThreads, false },
        { IoScheduling.ThreadPool, false },
    };

    [Theory]
    [MemberData(nameof(Readers))]
    public async Task Load_LoggerThrowsOnEveryFileLoaded_LoadsEveryFileAndReturnsEveryBuffer(IoScheduling scheduling, bool refuseRing)
    {
        var pool = new CountingPool();
        var loader = new FileLoader(Options(scheduling, pool), new LoadTestHooks { SimulateRingRefusal = refuseRing }, new ThrowingLoggerFactory());

        var loaded = await Loads.CollectAsync(loader, FileSet.FromDirectory(Root, "*", recursive: true)).WaitAsync(NoHang);

        AssertEveryFileArrived(loaded);
        pool.AssertAllReturned();
    }

    [Theory]
    [MemberData(nameof(Readers))]
    public async Task Load_MetricsListenerThrowsOnEveryMeasurement_LoadsEveryFileAndReturnsEveryBuffer(IoScheduling scheduling, bool refuseRing)
    {
        using ServiceProvider provider = new ServiceCollection().AddMetrics().BuildServiceProvider();
        var factory = provider.GetRequiredService<IMeterFactory>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (ReferenceEquals(instrument.Meter.Scope, factory))
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((_, _, _, _) => throw new InvalidOperationException("The listener is broken."));
        listener.SetMeasurementEventCallback<double>((_, _, _, _) => throw new InvalidOperationException("The listener is broken."));
        listener.Start();
        var pool = new CountingPool();
        var loader = new FileLoader(Options(scheduling, pool), new LoadTestHooks { SimulateRingRefusal = refuseRing }, meterFactory: factory);

        var loaded = await Loads.CollectAsync(loader, FileSet.FromDirectory(Root, "*", recursive: true)).WaitAsync(NoHang);

        AssertEveryFileArrived(loaded);
        pool.AssertAllReturned();
    }

    private static FileLoaderOptions Options(IoScheduling scheduling, CountingPool pool) => new()
    {
        // A few files at a time: a file whose bytes stayed charged would stop the load.
        MemoryBudget = 256 * 1024,
        ErrorHandling = LoadErrorHandling.Collect,
        Scheduling = scheduling,
        BufferPool = pool,
    };

    private void AssertEveryFileArrived(List<(string Path, int Index, byte[]? Data, Exception? Error)> loaded)
    {
        Assert.Equal(FileCount, loaded.Count);
        foreach ((string path, _, byte[]? data, Exception? error) in loaded)
        {
            Assert.Null(error);
            Assert.Equal(File.ReadAllBytes(path), data);
        }
    }

    /// <summary>Loggers whose every call to <see cref="ILogger.Log{TState}"/> throws, at every level.</summary>
    private sealed class ThrowingLoggerFactory : ILoggerFactory
    {
        public ILogger CreateLogger(string categoryName) => new ThrowingLogger();

        public void AddProvider(ILoggerProvider provider)
        {
        }

        public void Dispose()
        {
        }

        private sealed class ThrowingLogger : ILogger
        {
            public IDisposable? BeginScope<TState>(TState state)
                where TState : notnull => throw new InvalidOperationException("The sink is full.");

            public bool IsEnabled(LogLevel logLevel) => true;

            public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
                throw new InvalidOperationException("The sink is full.");
        }
    }
}
