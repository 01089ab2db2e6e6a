using FastLoad.Engine;

namespace FastLoad.Tests.Internals;

public class AfterNextCollectionTests
{
    [Fact]
    public void Run_AfterACollection_RunsTheWorkOnAPoolThreadNotTheFinalizers()
    {
        // The process-wide instruments are created this way, and a MeterListener's callback runs where they are: on the
        // finalizer's thread, a callback that blocks would stop every finalizer of the process.
        using var ran = new ManualResetEventSlim();
        bool onPoolThread = false;
        string? threadName = null;
        AfterNextCollection.Run(() =>
        {
            onPoolThread = Thread.CurrentThread.IsThreadPoolThread;
            threadName = Thread.CurrentThread.Name;
            ran.Set();
        });

        for (int attempt = 0; attempt < 50 && !ran.IsSet; attempt++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
            ran.Wait(TimeSpan.FromMilliseconds(100));
        }

        Assert.True(ran.IsSet, "the work did not run after 50 collections");
        Assert.True(onPoolThread, $"the work ran on '{threadName}', not on a pool thread");
    }
}
