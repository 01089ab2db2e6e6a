using FastLoad.Engine;

namespace FastLoad.Tests.Internals;

public class ConcurrencyGateTests
{
    [Fact]
    public async Task WaitAsync_AtTheLimit_WaitsUntilARelease()
    {
        var gate = new ConcurrencyGate(2);
        await gate.WaitAsync(CancellationToken.None);
        await gate.WaitAsync(CancellationToken.None);

        ValueTask third = gate.WaitAsync(CancellationToken.None);
        Assert.False(third.IsCompleted);

        gate.Release();
        await third.AsTask().WaitAsync(TimeSpan.FromSeconds(10));
    }

    [Fact]
    public async Task SetLimit_Raised_AdmitsWaitersAndLowered_HoldsNewOnes()
    {
        var gate = new ConcurrencyGate(1);
        await gate.WaitAsync(CancellationToken.None);
        ValueTask second = gate.WaitAsync(CancellationToken.None);

        gate.SetLimit(2);
        await second.AsTask().WaitAsync(TimeSpan.FromSeconds(10));

        gate.SetLimit(1);
        gate.Release();
        ValueTask third = gate.WaitAsync(CancellationToken.None);
        Assert.False(third.IsCompleted); // one still in flight, limit 1
        gate.Release();
        await third.AsTask().WaitAsync(TimeSpan.FromSeconds(10));
    }

    [Fact]
    public async Task WaitAsync_Canceled_ThrowsAndLeavesTheSlotFree()
    {
        var gate = new ConcurrencyGate(1);
        await gate.WaitAsync(CancellationToken.None);
        using var cancel = new CancellationTokenSource();
        ValueTask waiting = gate.WaitAsync(cancel.Token);

        await cancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiting.AsTask());

        gate.Release();
        await gate.WaitAsync(CancellationToken.None).AsTask().WaitAsync(TimeSpan.FromSeconds(10));
    }
}
