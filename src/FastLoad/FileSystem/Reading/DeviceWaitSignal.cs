namespace FastLoad.FileSystem;

/// <summary>
/// Whether a load's reads have waited for the device yet: set by the first read that did not find its file's bytes
/// in the page cache (or whose cache could not be asked). Until then a load's files are cached, and more reads at once
/// than cores only take turns on them.
/// </summary>
internal sealed class DeviceWaitSignal(Action onFirstWait)
{
    private int _seen;

    /// <summary>Whether a read waited for the device (or could not tell).</summary>
    public bool Seen => Volatile.Read(ref _seen) != 0;

    /// <summary>Records a wait; the first one runs the action the signal was made with, on the calling thread.</summary>
    public void Set()
    {
        if (Interlocked.Exchange(ref _seen, 1) == 0)
        {
            onFirstWait();
        }
    }
}
