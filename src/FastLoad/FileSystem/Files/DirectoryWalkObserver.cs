namespace FastLoad.FileSystem;

/// <summary>For tests: sees a walk's folders as they are listed, and how many walkers ran at once.</summary>
internal sealed class DirectoryWalkObserver
{
    private int _peakWalkers = 1;

    /// <summary>
    /// Called with each folder's path once it is listed, on the walker's thread, outside the walk's lock.
    /// </summary>
    public Action<string>? FolderListed { get; init; }

    /// <summary>
    /// Called with each folder's path as the walk through .NET's enumeration starts reading it, inside the time it
    /// judges as the device's (a slow device, for tests).
    /// </summary>
    public Action<string>? FolderReading { get; init; }

    /// <summary>The most walkers that ran at once, the calling thread included.</summary>
    public int PeakWalkers => Volatile.Read(ref _peakWalkers);

    internal void WalkersRunning(int walkers) => InterlockedMax.TryRaise(ref _peakWalkers, walkers);
}
