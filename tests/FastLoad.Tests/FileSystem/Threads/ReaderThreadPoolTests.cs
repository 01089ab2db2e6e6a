using System.Collections.Concurrent;
using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Internals;

public class ReaderThreadPoolTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(10);

    [Fact]
    public void Run_AfterEarlierWorkEnded_ReusesItsThread()
    {
        var pool = new ReaderThreadPool(Patience, "test reader");
        Thread first = RunAndCapture(pool);
        WaitUntil(() => pool.IdleThreads == 1);

        Thread second = RunAndCapture(pool);

        Assert.Same(first, second);
        Assert.Equal("test reader", second.Name);
        Assert.True(second.IsBackground);
    }

    [Fact]
    public void Run_WhileEveryThreadIsBusy_StartsAnotherAtOnce()
    {
        var pool = new ReaderThreadPool(Patience, "test reader");
        using var release = new ManualResetEventSlim();
        using var bothRunning = new CountdownEvent(2);
        var threads = new ConcurrentBag<Thread>();
        for (int i = 0; i < 2; i++)
        {
            pool.Run(
                _ =>
                {
                    threads.Add(Thread.CurrentThread);
                    bothRunning.Signal();
                    release.Wait(Patience);
                },
                null);
        }

        // Each piece of work blocks until both run: a pool that queued the second behind the first would time out here.
        Assert.True(bothRunning.Wait(Patience));
        release.Set();
        Assert.Equal(2, threads.Distinct().Count());
    }

    [Fact]
    public void IdleThread_AfterTimeout_Exits()
    {
        var pool = new ReaderThreadPool(TimeSpan.FromMilliseconds(50), "test reader");
        Thread thread = RunAndCapture(pool);

        Assert.True(thread.Join(Patience), "The idle thread did not exit after its timeout.");
        Assert.Equal(0, pool.IdleThreads);

        // The next work gets a new thread, not the one that left.
        Assert.NotSame(thread, RunAndCapture(pool));
    }

    /// <summary>
    /// Work handed out while idle threads time out (a timeout of zero: each leaves as soon as it is idle) races the
    /// hand-over against the leaving: each piece must run exactly once, none lost to a thread on its way out.
    /// </summary>
    [Fact]
    public void Run_WhileIdleThreadsTimeOut_RunsEveryPieceOfWorkOnce()
    {
        var pool = new ReaderThreadPool(TimeSpan.Zero, "test reader");
        // Under Wine a thread starts in about 4 ms, and nearly every piece starts one: fewer pieces there.
        int pieces = TestPlatform.IsWine ? 1_000 : 5_000;
        var runs = new int[pieces];
        int ran = 0;
        var random = new Random(3);
        for (int i = 0; i < pieces; i++)
        {
            pool.Run(
                state =>
                {
                    Interlocked.Increment(ref runs[(int)state!]);
                    Interlocked.Increment(ref ran);
                },
                i);
            Thread.SpinWait(random.Next(20_000));
        }

        WaitUntil(() => Volatile.Read(ref ran) >= pieces);
        Assert.All(runs, count => Assert.Equal(1, count));
    }

    private static Thread RunAndCapture(ReaderThreadPool pool)
    {
        using var ran = new ManualResetEventSlim();
        Thread? thread = null;
        pool.Run(
            _ =>
            {
                thread = Thread.CurrentThread;
                ran.Set();
            },
            null);
        Assert.True(ran.Wait(Patience));
        return thread!;
    }

    private static void WaitUntil(Func<bool> condition)
    {
        var deadline = DateTime.UtcNow + Patience;
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, "The condition did not hold in time.");
            Thread.Sleep(1);
        }
    }
}
