using System.Collections.Concurrent;
using System.Diagnostics;
using FastLoad.Engine;

namespace FastLoad.Tests.Readers;

/// <summary>
/// The turns of a lane in physical order: each file's first read goes out after the files before it, whatever order
/// its thread runs in, and a turn held up never holds the others for longer than the bound.
/// </summary>
public class ReadIssueOrderTests
{
    [Fact]
    public void WaitForTurn_ThreadsArriveInAnyOrder_GoInTicketOrder()
    {
        const int Tickets = 64;
        var order = new ReadIssueOrder(TimeSpan.FromMinutes(1));
        var went = new ConcurrentQueue<long>();
        var arrival = new Random(5);
        int[] delays = [.. Enumerable.Range(0, Tickets).Select(_ => arrival.Next(0, 4))];

        // Started last to first, each after a random delay: they reach their turn in about the reverse order.
        Thread[] threads = [.. Enumerable.Range(0, Tickets).Reverse().Select(ticket => new Thread(() =>
        {
            Thread.Sleep(delays[ticket]);
            Assert.True(order.WaitForTurn(ticket));
            went.Enqueue(ticket);
            order.Pass(ticket);
        }))];
        foreach (Thread thread in threads)
        {
            thread.Start();
        }

        foreach (Thread thread in threads)
        {
            thread.Join();
        }

        Assert.Equal(Enumerable.Range(0, Tickets).Select(ticket => (long)ticket), went);
    }

    [Fact]
    public async Task Pass_TicketsPassedEarly_CountOnceTheOnesBeforeThemPass()
    {
        var order = new ReadIssueOrder(TimeSpan.FromMinutes(1));

        // 2 and 1 pass before 0 (their files failed to open, say): 3's turn comes once 0 passes.
        order.Pass(2);
        order.Pass(1);
        Task<bool> third = Task.Run(() => order.WaitForTurn(3), TestContext.Current.CancellationToken);
        await Task.Delay(TimeSpan.FromMilliseconds(5), TestContext.Current.CancellationToken);
        Assert.False(third.IsCompleted);

        order.Pass(0);

        Assert.True(await third.WaitAsync(TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken));
    }

    [Fact]
    public void WaitForTurn_TurnBeforeNeverPasses_GoesOnAfterTheBound()
    {
        var order = new ReadIssueOrder(ReadIssueOrder.DefaultMaxWait);
        var waited = Stopwatch.StartNew();

        // Ticket 0 never passes (a file the lane never reached): 1 waits the bound and goes on.
        bool inTurn = order.WaitForTurn(1);

        Assert.False(inTurn);
        Assert.InRange(waited.Elapsed, ReadIssueOrder.DefaultMaxWait / 2, TimeSpan.FromSeconds(10));
    }
}
