using System.Collections.Concurrent;
using System.Diagnostics;
using System.Runtime.ExceptionServices;
using FastLoad.Engine;
using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Internals;

public class DedicatedThreadSchedulerTests
{
    /// <summary>
    /// Each round queues as many blocking "reads" as the gate admits, on a new scheduler, and every read waits until all
    /// of them are in flight. A read queued behind a busy thread never starts, so its round would never fill.
    /// </summary>
    [NotUnderWineTheory("44,000 threads started and ended, over a minute there (Wine starts a thread in about 2 ms)")]
    [InlineData(2, 5_000)]
    [InlineData(8, 2_000)]
    public async Task BlockingReads_QueuedWhileThreadsStart_AllReachTheGatesLimit(int limit, int rounds)
    {
        var random = new Random(1);
        for (int round = 0; round < rounds; round++)
        {
            var gate = new ConcurrencyGate(limit);
            using var allInFlight = new CountdownEvent(limit);
            int inFlight = 0;
            int peak = 0;
            var reads = new Task<bool>[limit];
            using (var scheduler = new DedicatedThreadScheduler(limit, "test"))
            {
                for (int i = 0; i < limit; i++)
                {
                    await gate.WaitAsync(CancellationToken.None);
                    Thread.SpinWait(random.Next(2_000)); // lands some tasks as a starting thread takes its first one
                    reads[i] = Task.Factory.StartNew(
                        () =>
                        {
                            InterlockedMax.TryRaise(ref peak, Interlocked.Increment(ref inFlight));
                            allInFlight.Signal();
                            bool filled = allInFlight.Wait(TimeSpan.FromSeconds(10)); // blocks like a pread
                            Interlocked.Decrement(ref inFlight);
                            gate.Release();
                            return filled;
                        },
                        CancellationToken.None,
                        TaskCreationOptions.None,
                        scheduler);
                }

                bool[] filled = await Task.WhenAll(reads);
                Assert.True(filled.All(f => f), $"Round {round}: only {peak} of {limit} reads were in flight at once.");
            }

            Assert.Equal(limit, peak);
        }
    }

    /// <summary>
    /// Disposing wakes the waiting threads without an exception: a first exception costs a new process more than a
    /// millisecond of CPU, and a BlockingCollection woke its waiters by canceling their waits.
    /// </summary>
    [Fact]
    public async Task Dispose_IdleThreads_ExitWithoutAnException()
    {
        string name = $"test-{Guid.NewGuid():N}";
        var thrown = new ConcurrentQueue<Exception>();
        void Record(object? sender, FirstChanceExceptionEventArgs e)
        {
            if (Thread.CurrentThread.Name?.StartsWith(name, StringComparison.Ordinal) == true)
            {
                thrown.Enqueue(e.Exception);
            }
        }

        AppDomain.CurrentDomain.FirstChanceException += Record;
        try
        {
            var scheduler = new DedicatedThreadScheduler(2, name);
            await Task.Factory.StartNew(() => { }, CancellationToken.None, TaskCreationOptions.None, scheduler);
            Assert.Equal(1, scheduler.RunningThreads); // its thread ran the task and waits for another

            scheduler.Dispose();
            var waited = Stopwatch.StartNew();
            while (scheduler.RunningThreads > 0 && waited.Elapsed < TimeSpan.FromSeconds(10))
            {
                await Task.Delay(5);
            }

            Assert.Equal(0, scheduler.RunningThreads);
        }
        finally
        {
            AppDomain.CurrentDomain.FirstChanceException -= Record;
        }

        Assert.Empty(thrown);
    }

    [Fact]
    public async Task Dispose_AfterWork_ThreadsExitAndLateTasksStillRun()
    {
        var scheduler = new DedicatedThreadScheduler(4, "test");
        int ran = await Task.Factory.StartNew(() => 1, CancellationToken.None, TaskCreationOptions.None, scheduler);
        scheduler.Dispose();
        scheduler.Dispose();

        // Queued after Dispose (the queue may already be disposed by the last worker): runs on the pool instead.
        int late = await Task.Factory.StartNew(() => 2, CancellationToken.None, TaskCreationOptions.None, scheduler).WaitAsync(TimeSpan.FromSeconds(10));
        scheduler.AllowThreads(8);

        Assert.Equal(3, ran + late);
    }
}
