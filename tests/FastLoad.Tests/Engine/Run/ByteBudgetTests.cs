using FastLoad.Engine;

namespace FastLoad.Tests.Internals;

/// <summary>
/// The budget's waiting line: first come first served, the due file never waits, a stop wakes everyone, and a release
/// wakes only the waiters it lets through (with 64 reader threads under a tight budget, waking all of them on every
/// release made the load 10-25 times slower).
/// </summary>
public class ByteBudgetTests
{
    private static readonly TimeSpan NoHang = TimeSpan.FromSeconds(30);

    [Fact]
    public void Release_WithManyWaiters_WakesOnlyTheWaitersItLetsThrough()
    {
        const int Waiters = 32;
        var budget = new ByteBudget(capacity: 100);
        budget.Acquire(100, index: 0, CancellationToken.None);
        var granted = new List<int>();
        var threads = new List<Thread>();
        for (int index = 1; index <= Waiters; index++)
        {
            // One at a time, so that the line is in this order.
            int position = index;
            threads.Add(Start(() => Take(budget, 10, position, granted)));
            Assert.True(SpinWait.SpinUntil(() => budget.Waiting == index, NoHang));
        }

        long wakeUps = budget.WakeUps;

        budget.Release(10);
        Assert.True(SpinWait.SpinUntil(() => Count(granted) == 1, NoHang));
        budget.Release(30);
        Assert.True(SpinWait.SpinUntil(() => Count(granted) == 4, NoHang));

        // One waiter woken for the first release, three for the second: none woken to find it must wait on.
        Assert.Equal(wakeUps + 4, budget.WakeUps);
        Assert.Equal(Waiters - 4, budget.Waiting);

        for (int released = 4; released < Waiters; released++)
        {
            budget.Release(10);
            Assert.True(SpinWait.SpinUntil(() => Count(granted) == released + 1, NoHang));
        }

        Assert.All(threads, thread => Assert.True(thread.Join(NoHang)));
        Assert.Equal(wakeUps + Waiters, budget.WakeUps);

        // In the order they arrived (the three let through together finish in any order).
        Assert.Equal(1, granted[0]);
        Assert.Equal([2, 3, 4], granted[1..4].Order());
        Assert.Equal(Enumerable.Range(5, Waiters - 4), granted[4..]);
    }

    [Fact]
    public void Acquire_LargerRequestFirstInLine_IsNotOvertakenBySmallerOnes()
    {
        var budget = new ByteBudget(capacity: 100);
        budget.Acquire(60, index: 0, CancellationToken.None);
        var order = new List<int>();
        Thread large = Start(() => Take(budget, 80, 1, order));
        Assert.True(SpinWait.SpinUntil(() => budget.Waiting == 1, NoHang));
        Thread small = Start(() => Take(budget, 30, 2, order));
        Assert.True(SpinWait.SpinUntil(() => budget.Waiting == 2, NoHang));

        // 30 bytes would fit beside the 60 held, but the 80 came first and waits for them. Beside the 80 they do not
        // fit, so the smaller one cannot finish first once the 80 is let through (with 10, both were, in either order).
        Assert.False(budget.TryAcquire(30, index: 3));
        budget.Release(60);

        Assert.True(large.Join(NoHang));
        Assert.True(SpinWait.SpinUntil(() => budget.Waiting == 1 || Count(order) == 2, NoHang));
        budget.Release(80);
        Assert.True(small.Join(NoHang));
        Assert.Equal([1, 2], order);
    }

    [Fact]
    public void SetDue_WaiterForTheDueFile_TakesItsBytesAtOnceAheadOfTheLine()
    {
        var budget = new ByteBudget(capacity: 100);
        budget.Acquire(100, index: 0, CancellationToken.None);
        var order = new List<int>();
        Thread first = Start(() => Take(budget, 50, 5, order));
        Assert.True(SpinWait.SpinUntil(() => budget.Waiting == 1, NoHang));
        Thread due = Start(() => Take(budget, 50, 6, order));
        Assert.True(SpinWait.SpinUntil(() => budget.Waiting == 2, NoHang));

        budget.SetDue(6);

        Assert.True(due.Join(NoHang));
        Assert.Equal([6], order);
        Assert.Equal(1, budget.Waiting);
        budget.Release(150);
        Assert.True(first.Join(NoHang));
    }

    [Fact]
    public void Stop_WithWaiters_WakesEachWithOperationCanceledAndRefusesLaterWaits()
    {
        var budget = new ByteBudget(capacity: 10);
        budget.Acquire(10, index: 0, CancellationToken.None);
        int canceled = 0;
        Thread[] threads = [.. Enumerable.Range(1, 8).Select(index => Start(() =>
        {
            try
            {
                budget.Acquire(5, index, CancellationToken.None);
            }
            catch (OperationCanceledException)
            {
                Interlocked.Increment(ref canceled);
            }
        }))];
        Assert.True(SpinWait.SpinUntil(() => budget.Waiting == 8, NoHang));

        budget.Stop();

        Assert.All(threads, thread => Assert.True(thread.Join(NoHang)));
        Assert.Equal(8, canceled);
        Assert.Throws<OperationCanceledException>(() => budget.Acquire(5, index: 9, CancellationToken.None));
    }

    [Fact]
    public async Task AcquireAsync_WhenItMustWait_HoldsNoThreadAndKeepsItsPlaceInTheLine()
    {
        var budget = new ByteBudget(capacity: 100);
        budget.Acquire(100, index: 0, CancellationToken.None);
        var order = new List<int>();
        Thread first = Start(() => Take(budget, 50, 1, order));
        Assert.True(SpinWait.SpinUntil(() => budget.Waiting == 1, NoHang));

        Task second = budget.AcquireAsync(50, index: 2, CancellationToken.None);
        Thread third = Start(() => Take(budget, 50, 3, order));
        Assert.True(SpinWait.SpinUntil(() => budget.Waiting == 3, NoHang));
        Assert.False(second.IsCompleted);

        // 50 bytes let the thread that came first through; the next 50 the asynchronous wait, not the thread behind it.
        budget.Release(50);
        Assert.True(first.Join(NoHang));
        Assert.False(second.IsCompleted);
        budget.Release(50);
        await second.WaitAsync(NoHang);
        Assert.Equal(1, budget.Waiting);

        budget.Release(50);
        Assert.True(third.Join(NoHang));
        Assert.Equal([1, 3], order);
    }

    [Fact]
    public async Task AcquireAsync_Stopped_FaultsWithOperationCanceledNowAndLater()
    {
        var budget = new ByteBudget(capacity: 10);
        budget.Acquire(10, index: 0, CancellationToken.None);
        Task waiting = budget.AcquireAsync(5, index: 1, CancellationToken.None);
        Assert.False(waiting.IsCompleted);

        budget.Stop();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiting.WaitAsync(NoHang));
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => budget.AcquireAsync(5, index: 2, CancellationToken.None));
        Assert.Equal(0, budget.Waiting);
    }

    private static void Take(ByteBudget budget, long bytes, int index, List<int> order)
    {
        budget.Acquire(bytes, index, CancellationToken.None);
        lock (order)
        {
            order.Add(index);
        }
    }

    private static int Count(List<int> list)
    {
        lock (list)
        {
            return list.Count;
        }
    }

    private static Thread Start(Action work)
    {
        var thread = new Thread(() => work()) { IsBackground = true };
        thread.Start();
        return thread;
    }
}
