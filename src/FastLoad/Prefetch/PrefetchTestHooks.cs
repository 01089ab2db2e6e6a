namespace FastLoad.Prefetch;

/// <summary>What tests change in a start: where it looks for the application and its cache, what it records, and a pause in the replay.</summary>
internal sealed class PrefetchTestHooks
{
    public static PrefetchTestHooks None { get; } = new();

    /// <summary>The application's folder instead of <see cref="AppContext.BaseDirectory"/>.</summary>
    public string? AppDirectory { get; init; }

    /// <summary>The application's name instead of the entry assembly's.</summary>
    public string? AppName { get; init; }

    /// <summary>The per-user cache folder instead of the platform's; empty for none.</summary>
    public string? CacheDirectory { get; init; }

    /// <summary>Which files a recording keeps (a test process maps and loads files of other tests too).</summary>
    public Func<string, bool>? RecordFilter { get; init; }

    /// <summary>What the process read from the disk before the start began, instead of the system's count; <see langword="null"/> from it for a system that does not say.</summary>
    public Func<long?>? DiskReadBytes { get; init; }

    /// <summary>Called on the replay's thread before each range is asked for, with its number.</summary>
    public Action<int>? BeforeRange { get; init; }

    /// <summary>Called before the start's thread is created; throws to stand for a system that refuses the thread.</summary>
    public Action? BeforeThreadStart { get; init; }

    /// <summary>Called on the start's thread once the replay is over (or there was none), before it waits for the end.</summary>
    public Action? AfterReplay { get; init; }

    /// <summary>Replaces whether the application lies on a spinning disk (the test's files lie wherever its temporary folder does).</summary>
    public bool? AppOnSpinningDisk { get; init; }
}
