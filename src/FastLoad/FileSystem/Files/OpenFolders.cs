namespace FastLoad.FileSystem;

/// <summary>
/// The descriptors of folders a walk listed, kept open for the load that reads their files: the load opens each file by
/// its name in its folder (<c>openat</c>), which spares the kernel the lookup of every folder on the file's path, and
/// reads the folder it listed even if that folder is renamed meanwhile. At most 128 folders, and a sixteenth of the
/// descriptors the process may open; the files of the others are opened by their whole path. Disposing closes the
/// descriptors; so does the finalizer, for a load its consumer abandoned.
/// </summary>
internal sealed class OpenFolders : IDisposable
{
    private const int MaxFolders = 128;

    private readonly int[] _descriptors;
    private int _reserved;
    private int[]? _folderOfPath;
    private int _closed;

    private OpenFolders(int limit) => _descriptors = new int[limit];

    ~OpenFolders() => Close();

    /// <summary>How many folders are kept.</summary>
    public int Count => Math.Min(Volatile.Read(ref _reserved), _descriptors.Length);

    /// <summary>A holder for this process's limit of descriptors, or <see langword="null"/> where it is too low to spare any.</summary>
    public static unsafe OpenFolders? Create()
    {
        Interop.ResourceLimit limit;
        long allowed = Interop.GetResourceLimit(Interop.ResourceLimitOpenFiles, &limit) == 0 ? (long)Math.Min(limit.Current, int.MaxValue) / 16 : 0;
        return allowed > 0 ? new OpenFolders((int)Math.Min(allowed, MaxFolders)) : null;
    }

    /// <summary>
    /// Where what is opened for <paramref name="path"/> starts in it: its name, relative to <paramref name="folder"/>, a
    /// kept folder's descriptor; the whole path where the folder is -1.
    /// </summary>
    public static int NameStart(string path, int folder) => folder < 0 ? 0 : path.LastIndexOf('/') + 1;

    /// <summary>The descriptor of the folder of the path at <paramref name="index"/>, or -1 when it was not kept.</summary>
    public int FolderOf(int index) => _folderOfPath is { } folders && folders[index] >= 0 ? _descriptors[folders[index]] : -1;

    public void Dispose()
    {
        Close();
        GC.SuppressFinalize(this);
    }

    /// <summary>Keeps <paramref name="descriptor"/>; its place, or -1 when the limit is reached (the caller closes it). Any thread.</summary>
    internal int TryKeep(int descriptor)
    {
        int slot = Interlocked.Increment(ref _reserved) - 1;
        if (slot >= _descriptors.Length)
        {
            return -1;
        }

        _descriptors[slot] = descriptor;
        return slot;
    }

    /// <summary>Sets, for each listed path, the place of its folder's descriptor (-1 where it was not kept).</summary>
    internal void SetFolders(int[] folderOfPath) => _folderOfPath = folderOfPath;

    private void Close()
    {
        if (Interlocked.Exchange(ref _closed, 1) != 0)
        {
            return;
        }

        int count = Count;
        for (int slot = 0; slot < count; slot++)
        {
            Interop.Close(_descriptors[slot]);
        }
    }
}
