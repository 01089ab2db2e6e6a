using FastLoad.Engine;
using Microsoft.Extensions.Time.Testing;

namespace FastLoad.Tests.Internals;

/// <summary>
/// The controller against simulated devices: throughput as a function of queue depth for HDD-, SATA- and NVMe-like
/// curves, with a few percent of deterministic noise. Each completion advances a fake clock by 1 / throughput.
/// </summary>
public class ParallelismControllerTests
{
    /// <summary>NCQ helps a little up to 4 requests; beyond, the head thrashes.</summary>
    private static double Hdd(int depth) => depth <= 4 ? 120 + (50.0 * (depth - 1) / 3) : 170 * Math.Pow(0.93, Math.Log2(depth / 4.0));

    /// <summary>Latency grows with the queue: IOPS(q) = q / (base + q / max), max 90k, base 100 us.</summary>
    private static double Sata(int depth) => depth / (100e-6 + (depth / 90_000.0));

    /// <summary>The same with max 500k and base 80 us: still gaining at 128.</summary>
    private static double Nvme(int depth) => depth / (80e-6 + (depth / 500_000.0));

    private static List<int> Simulate(ParallelismController controller, FakeTimeProvider time, Func<int, double> device, TimeSpan duration, int seed = 1, double windowNoise = 0) =>
        Simulate(controller, time, device, duration, [], seed, windowNoise);

    /// <summary>Runs the device for <paramref name="duration"/>; returns the settled limit once per window, and adds every limit run at to <paramref name="tried"/>.</summary>
    private static List<int> Simulate(ParallelismController controller, FakeTimeProvider time, Func<int, double> device, TimeSpan duration, HashSet<int> tried, int seed = 1, double windowNoise = 0)
    {
        var random = new Random(seed);
        double slowdown = 1;
        var limits = new List<int>();
        TimeSpan elapsed = TimeSpan.Zero;
        TimeSpan nextSample = TimeSpan.Zero;
        while (elapsed < duration)
        {
            // Completions in batches of about a millisecond keep fast devices cheap to simulate.
            tried.Add(controller.Limit);
            double rate = device(controller.Limit) * slowdown;
            int batch = Math.Max(1, (int)(rate / 1000));
            double noise = 1 + ((random.NextDouble() - 0.5) * 0.06);
            var step = TimeSpan.FromSeconds(noise * batch / rate);
            time.Advance(step);
            elapsed += step;
            controller.OnCompleted(bytes: 4096L * batch, files: batch);
            if (elapsed >= nextSample)
            {
                limits.Add(controller.Settled);
                nextSample += ParallelismController.DefaultWindow;

                // A shared machine: each window the whole device runs faster or slower by up to +-windowNoise.
                slowdown = 1 + ((random.NextDouble() - 0.5) * 2 * windowNoise);
            }
        }

        return limits;
    }

    private static int MedianOfLast(List<int> limits, int count) => limits.TakeLast(count).Order().ElementAt(Math.Min(count, limits.Count) / 2);

    // Each start lies outside the range the controller must reach, so a controller that never moves fails.
    [Theory]
    [InlineData(16)]
    [InlineData(32)]
    [InlineData(128)]
    public void HddLikeDevice_ConvergesToAShallowQueue(int initial)
    {
        var time = new FakeTimeProvider();
        var controller = new ParallelismController(initial, ceiling: 256, countFiles: true, time);
        var tried = new HashSet<int>();

        List<int> limits = Simulate(controller, time, Hdd, TimeSpan.FromSeconds(120), tried);

        Assert.InRange(MedianOfLast(limits, 100), 1, 4);
        Assert.Contains(tried, limit => limit != initial); // It tried other depths: a frozen controller fails here.
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void HddLikeDevice_OnANoisyMachine_StillConvergesShallow(int seed)
    {
        var time = new FakeTimeProvider();
        var controller = new ParallelismController(128, ceiling: 256, countFiles: true, time);

        List<int> limits = Simulate(controller, time, Hdd, TimeSpan.FromSeconds(300), seed, windowNoise: 0.15);

        Assert.InRange(MedianOfLast(limits, 200), 1, 4);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    [InlineData(16)]
    public void NvmeLikeDevice_ConvergesToADeepQueue(int initial)
    {
        var time = new FakeTimeProvider();
        var controller = new ParallelismController(initial, ceiling: 256, countFiles: true, time);
        var tried = new HashSet<int>();

        List<int> limits = Simulate(controller, time, Nvme, TimeSpan.FromSeconds(30), tried);

        Assert.InRange(MedianOfLast(limits, 50), 32, 256);
        Assert.Contains(tried, limit => limit != initial); // It tried other depths: a frozen controller fails here.
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    [InlineData(5)]
    public void NvmeLikeDevice_OnANoisyMachine_StillConvergesDeep(int seed)
    {
        var time = new FakeTimeProvider();
        var controller = new ParallelismController(4, ceiling: 256, countFiles: true, time);
        var tried = new HashSet<int>();

        List<int> limits = Simulate(controller, time, Nvme, TimeSpan.FromSeconds(30), tried, seed, windowNoise: 0.15);

        Assert.InRange(MedianOfLast(limits, 100), 32, 256);
        Assert.Contains(tried, limit => limit != 4); // It reached the deep queue by trying, not by starting there.
    }

    [Fact]
    public void SataLikeDevice_SettlesWhereMoreDepthStopsPaying()
    {
        var time = new FakeTimeProvider();
        var controller = new ParallelismController(4, ceiling: 256, countFiles: true, time);

        List<int> limits = Simulate(controller, time, Sata, TimeSpan.FromSeconds(30));

        // From 32 to 64 gains 13%, 64 to 128 about 7%, then noise: somewhere from 32 up.
        Assert.InRange(MedianOfLast(limits, 50), 32, 256);
    }

    [Fact]
    public void DeviceSlowsDown_ControllerBacksDown()
    {
        var time = new FakeTimeProvider();
        var controller = new ParallelismController(128, ceiling: 256, countFiles: true, time);
        bool slow = false;

        List<int> fast = Simulate(controller, time, depth => slow ? Hdd(depth) : Nvme(depth), TimeSpan.FromSeconds(5));
        slow = true;
        List<int> afterwards = Simulate(controller, time, depth => slow ? Hdd(depth) : Nvme(depth), TimeSpan.FromSeconds(180), seed: 2);

        Assert.True(MedianOfLast(fast, 20) >= 32);
        Assert.InRange(MedianOfLast(afterwards, 100), 1, 8);
    }

    [Fact]
    public void Limit_StaysWithinOneAndTheCeiling()
    {
        var time = new FakeTimeProvider();
        var controller = new ParallelismController(8, ceiling: 16, countFiles: true, time);

        List<int> limits = Simulate(controller, time, Nvme, TimeSpan.FromSeconds(5));

        Assert.All(limits, limit => Assert.InRange(limit, 1, 16));
        Assert.InRange(controller.Limit, 1, 16);
        Assert.All(controller.History, limit => Assert.InRange(limit, 1, 16));
        Assert.Equal(8, controller.History[0]);
    }

    [Fact]
    public void OnCompleted_BeforeTheInitialRest_DoesNotChangeTheLimit()
    {
        var time = new FakeTimeProvider();
        var controller = new ParallelismController(8, ceiling: 64, countFiles: true, time);

        for (int i = 0; i < 1000; i++)
        {
            Assert.Null(controller.OnCompleted(4096, 1));
        }

        // The first trial waits for InitialRestWindows windows; then the controller tries another limit.
        for (int window = 0; window < ParallelismController.InitialRestWindows; window++)
        {
            time.Advance(ParallelismController.DefaultWindow);
            Assert.Null(controller.OnCompleted(4096, 8));
        }

        time.Advance(ParallelismController.DefaultWindow);
        Assert.Equal(16, controller.OnCompleted(4096, 8));
    }
}
