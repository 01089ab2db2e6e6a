using System.IO.Enumeration;
using Microsoft.Extensions.FileProviders.Physical;

namespace FastLoad.FileProviders;

/// <summary>
/// What a preloaded folder holds, read before its files are loaded: its folders (empty ones too), the files to load and
/// the times a listing reports for them. Links to folders are not followed, and a folder that cannot be read is left
/// out: both are reported in <see cref="Skipped"/>, so that one bad entry costs no other its place.
/// </summary>
internal sealed class FolderListing
{
    private FolderListing()
    {
    }

    /// <summary>Gets every folder under the root, parents before their children.</summary>
    public List<TreeDirectory> Directories { get; } = [];

    /// <summary>Gets the files to load: every entry that is not a folder (special files too, which the load refuses) and that the filters do not hide.</summary>
    public List<ListedFile> Files { get; } = [];

    /// <summary>Gets the links to folders and the folders that could not be read.</summary>
    public List<LoadFailure> Skipped { get; } = [];

    /// <summary>Lists <paramref name="root"/>, a full path, and everything under it.</summary>
    /// <exception cref="DirectoryNotFoundException"><paramref name="root"/> does not exist.</exception>
    /// <exception cref="UnauthorizedAccessException"><paramref name="root"/> cannot be read.</exception>
    /// <exception cref="IOException"><paramref name="root"/> cannot be read.</exception>
    public static FolderListing Read(string root, ExclusionFilters filters)
    {
        var listing = new FolderListing();
        var options = new EnumerationOptions { RecurseSubdirectories = false, IgnoreInaccessible = false, AttributesToSkip = 0 };
        var pending = new Queue<(string Path, string Name)>();
        pending.Enqueue((root, string.Empty));
        while (pending.TryDequeue(out (string Path, string Name) folder))
        {
            try
            {
                var entries = new FileSystemEnumerable<Entry>(folder.Path, static (ref FileSystemEntry entry) => new Entry(ref entry), options);
                foreach (Entry entry in entries)
                {
                    // Joined here: FileSystemEntry.ToFullPath gives "" for a path longer than PATH_MAX.
                    string path = Path.Join(folder.Path, entry.FileName);
                    string name = folder.Name.Length == 0 ? entry.FileName : $"{folder.Name}/{entry.FileName}";
                    bool excluded = PhysicalFileProviderRules.IsExcluded(entry.FileName, entry.Attributes, filters);
                    bool link = (entry.Attributes & FileAttributes.ReparsePoint) != 0;
                    if (entry.IsDirectory && link)
                    {
                        // A preloaded folder is read whole: a link to a folder above it would never end.
                        listing.Skipped.Add(new LoadFailure(path, new IOException($"'{path}' is a symbolic link to a folder; links to folders are not followed.")));
                    }
                    else if (entry.IsDirectory)
                    {
                        listing.Directories.Add(new TreeDirectory(name, entry.LastWriteTimeUtc, Listed: !excluded));
                        pending.Enqueue((path, name));
                    }
                    else if (!excluded)
                    {
                        // A hidden file is never served, so it is not loaded either.
                        listing.Files.Add(new ListedFile(path, name, entry.LastWriteTimeUtc, link));
                    }
                }
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException && folder.Name.Length > 0)
            {
                listing.Skipped.Add(new LoadFailure(folder.Path, ex));
            }
        }

        return listing;
    }

    /// <summary>What the listing keeps of an entry, taken while the enumeration's entry is valid.</summary>
    private readonly struct Entry
    {
        public Entry(ref FileSystemEntry entry)
        {
            FileName = entry.FileName.ToString();
            IsDirectory = entry.IsDirectory;
            Attributes = entry.Attributes;
            LastWriteTimeUtc = entry.LastWriteTimeUtc;
        }

        public string FileName { get; }

        /// <summary>Gets whether the entry is a folder, or a link to one (a link's target decides, as .NET reports it).</summary>
        public bool IsDirectory { get; }

        public FileAttributes Attributes { get; }

        public DateTimeOffset LastWriteTimeUtc { get; }
    }
}

/// <summary>A file of a <see cref="FolderListing"/>.</summary>
/// <param name="Path">Its full path.</param>
/// <param name="Name">Its path under the root, with '/' between segments.</param>
/// <param name="LastModified">Its last write time; a link's own, for a symbolic link.</param>
/// <param name="IsLink">Whether it is a symbolic link (to a file, or to nothing).</param>
internal readonly record struct ListedFile(string Path, string Name, DateTimeOffset LastModified, bool IsLink);
