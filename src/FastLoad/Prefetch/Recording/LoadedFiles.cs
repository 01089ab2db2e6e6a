using FastLoad.Engine;

namespace FastLoad.Prefetch;

/// <summary>
/// The files FastLoad reads from the beginning of a start until it is recorded, by full path. Kept apart from
/// <see cref="StartupRecorder"/> so that <c>Begin</c>, at the top of <c>Main</c>, loads only this small listener.
/// </summary>
internal sealed class LoadedFiles : IDisposable
{
    // A monitor, not a System.Threading.Lock: made at the top of Main (LoadObservers says why).
    private readonly object _sync = new();
    private readonly Func<string, bool>? _filter;
    private readonly IDisposable _subscription;
    private HashSet<string>? _files;

    /// <param name="filter">The paths to keep (tests: their own files), applied as files are heard of; <see langword="null"/> for all.</param>
    public LoadedFiles(Func<string, bool>? filter)
    {
        _filter = filter;
        _subscription = LoadObservers.Subscribe(OnFileRead);
    }

    /// <summary>The files heard of so far, in no particular order.</summary>
    public string[] ToArray()
    {
        lock (_sync)
        {
            return _files is null ? [] : [.. _files];
        }
    }

    public void Dispose() => _subscription.Dispose();

    private void OnFileRead(string path)
    {
        string full = Path.GetFullPath(path);
        if (_filter?.Invoke(full) == false)
        {
            return;
        }

        lock (_sync)
        {
            // A guard on memory only: which files the manifest keeps is decided when it is built, by priority and path,
            // so that loads finishing in another order record the same manifest.
            _files ??= new HashSet<string>(StringComparer.Ordinal);
            if (_files.Count < ManifestFormat.MaxFiles)
            {
                _files.Add(full);
            }
        }
    }
}
