namespace FastLoad.Tests.Infrastructure;

/// <summary>A clock that moves only when told (Microsoft.Extensions.TimeProvider.Testing is not available here).</summary>
public sealed class ManualTimeProvider : TimeProvider
{
    private long _ticks;

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override long GetTimestamp() => Interlocked.Read(ref _ticks);

    public void Advance(TimeSpan by) => Interlocked.Add(ref _ticks, by.Ticks);
}
