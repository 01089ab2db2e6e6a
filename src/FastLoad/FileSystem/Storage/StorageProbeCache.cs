namespace FastLoad.FileSystem;

/// <summary>
/// Device descriptions by key, each kept for a short time: a remount, or a device number reused for another device,
/// must not be described from what was there before. Probing again costs a few sysfs reads.
/// </summary>
internal sealed class StorageProbeCache(TimeProvider time, TimeSpan lifetime)
{
    /// <summary>How long a description is reused: long enough that the loads of one start-up probe once.</summary>
    public static readonly TimeSpan DefaultLifetime = TimeSpan.FromSeconds(10);

    // A lock over a dictionary of reference types, not a ConcurrentDictionary of tuples: the runtime has that code
    // precompiled, so the first load of a process does not wait for the JIT here.
    private readonly Dictionary<string, Entry> _entries = new(StringComparer.Ordinal);

    /// <summary>The cached description of <paramref name="key"/> if still fresh; otherwise probes and caches it.</summary>
    public StorageDevice GetOrAdd<TState>(string key, Func<string, TState, StorageDevice> probe, TState state)
    {
        if (TryGet(key, out StorageDevice? device))
        {
            return device;
        }

        return Add(key, probe(key, state));
    }

    /// <summary>The cached description of <paramref name="key"/>, if it is still fresh.</summary>
    public bool TryGet(string key, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out StorageDevice? device)
    {
        Entry? entry;
        lock (_entries)
        {
            _entries.TryGetValue(key, out entry);
        }

        if (entry is not null && time.GetElapsedTime(entry.Stamp) < lifetime)
        {
            device = entry.Device;
            return true;
        }

        device = null;
        return false;
    }

    /// <summary>Caches <paramref name="device"/> as the description of <paramref name="key"/> from now on.</summary>
    public StorageDevice Add(string key, StorageDevice device)
    {
        var entry = new Entry(device, time.GetTimestamp());
        lock (_entries)
        {
            _entries[key] = entry;
        }

        return device;
    }

    private sealed record Entry(StorageDevice Device, long Stamp);
}
