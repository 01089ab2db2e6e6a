namespace FastLoad.Engine;

/// <summary>
/// The files read and not yet handed over, in the order the consumer takes them: completion order (oldest first) or
/// input order (each file at its position in the set). Every such file holds one of the load's delivery slots, so at
/// most <c>capacity</c> are here at once, and in input order their positions lie within a window of that size from
/// the next one due: an array of that size holds them, each at its position modulo the size. Not thread-safe: the
/// load's lock guards it.
/// </summary>
internal sealed class DeliveryQueue(int capacity, bool inputOrder)
{
    private readonly LoadedFile?[] _files = new LoadedFile?[capacity];
    private int _first;
    private int _count;

    /// <summary>How many files wait to be handed over.</summary>
    public int Count => _count;

    public void Add(LoadedFile file)
    {
        int at = inputOrder ? file.Index % _files.Length : (_first + _count) % _files.Length;
        if (_files[at] is not null)
        {
            // A file holding no delivery slot: an engine bug that would lose a file.
            throw new InvalidOperationException($"The delivery queue has no room for '{file.Path}' (index {file.Index}).");
        }

        _files[at] = file;
        _count++;
    }

    /// <summary>Whether the file the consumer takes next is here (<paramref name="next"/>: the position due, in input order).</summary>
    public bool HasNext(int next) => inputOrder ? _files[next % _files.Length] is not null : _count > 0;

    /// <summary>Takes the file the consumer takes next, if it is here.</summary>
    public bool TryTake(int next, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out LoadedFile? file)
    {
        int at = inputOrder ? next % _files.Length : _first;
        file = _files[at];
        if (file is null)
        {
            return false;
        }

        _files[at] = null;
        _count--;
        if (!inputOrder)
        {
            _first = (_first + 1) % _files.Length;
        }

        return true;
    }

    /// <summary>Returns the buffer of every file still here.</summary>
    public void DisposeAll()
    {
        for (int at = 0; at < _files.Length; at++)
        {
            _files[at]?.Dispose();
            _files[at] = null;
        }

        _count = 0;
    }
}
