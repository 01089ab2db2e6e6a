using System.Collections.Concurrent;

namespace FastLoad;

/// <summary>
/// Device descriptions by key, each kept for a short time: a remount, or a device number reused for another device,
/// must not be described from what was there before. Probing again costs a few sysfs reads.
/// </summary>
internal sealed class StorageProbeCache(TimeProvider time, TimeSpan lifetime)
{
    /// <summary>How long a description is reused: long enough that the loads of one start-up probe once.</summary>
    public static readonly TimeSpan DefaultLifetime = TimeSpan.FromSeconds(10);

    private readonly ConcurrentDictionary<string, (StorageDevice Device, long Stamp)> _entries = new(StringComparer.Ordinal);

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
        if (_entries.TryGetValue(key, out var entry) && time.GetElapsedTime(entry.Stamp) < lifetime)
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
        _entries[key] = (device, time.GetTimestamp());
        return device;
    }
}
