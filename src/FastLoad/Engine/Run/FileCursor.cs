using FastLoad.FileSystem;

namespace FastLoad.Engine;

/// <summary>
/// Which file of a load's set is read next: the set's paths, enumerated when the load starts, each claimed by one
/// reader, in the set's order. Any thread.
/// </summary>
internal sealed class FileCursor(FileSet set)
{
    private string[] _paths = [];
    private UndecodableNames? _undecodable;
    private OpenFolders? _openFolders;
    private int _claimed;

    /// <summary>The set as the caller gave it.</summary>
    public FileSet Set => set;

    /// <summary>How many files the set has, once enumerated.</summary>
    public int Count => _paths.Length;

    /// <summary>How many files no reader claimed yet.</summary>
    public int Left => Math.Max(0, _paths.Length - Volatile.Read(ref _claimed));

    /// <summary>Whether every file was claimed.</summary>
    public bool Exhausted => Volatile.Read(ref _claimed) >= _paths.Length;

    public string PathAt(int index) => _paths[index];

    /// <summary>Enumerates the set; on the consumer's thread, before any reader starts.</summary>
    public void Enumerate(CancellationToken cancellationToken) => _paths = FilePlanner.Enumerate(set, cancellationToken, out _undecodable, out _openFolders);

    /// <summary>
    /// The descriptor of the folder of the file at <paramref name="index"/>, kept open by the walk that listed it, or -1:
    /// the file is then opened by its name in that folder.
    /// </summary>
    public int FolderOf(int index) => _openFolders?.FolderOf(index) ?? -1;

    /// <summary>Closes the folders the walk kept open; once no read can open a file any more.</summary>
    public void CloseFolders() => _openFolders?.Dispose();

    /// <summary>Claims the next file; <see langword="false"/> when none is left.</summary>
    public bool TryClaim(out int index)
    {
        index = Interlocked.Increment(ref _claimed) - 1;
        return index < _paths.Length;
    }

    /// <summary>Checks a path the set could not decode before it is opened.</summary>
    public void CheckName(int index, string path)
    {
        if (_undecodable is not null && FilePlanner.CheckName(path, _undecodable.Contains(index)) is { } badName)
        {
            throw badName;
        }
    }
}
