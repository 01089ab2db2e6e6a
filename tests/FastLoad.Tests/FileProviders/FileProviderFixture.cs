using FastLoad.Tests.Infrastructure;
using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.FileProviders.Physical;

namespace FastLoad.Tests.FileProviders;

/// <summary>
/// One folder with the awkward cases (empty, block-boundary and multi-block sizes, deep, dot-prefixed files and folders,
/// spaces, non-ASCII, case, an empty folder, and on Linux a FIFO and dangling and folder links beside a good file), a
/// pack of it over small blocks, and a preloaded copy of it: the three providers the conformance suite compares, each
/// with <see cref="ExclusionFilters.None"/> and with <see cref="ExclusionFilters.Sensitive"/>.
/// </summary>
public sealed class FileProviderFixture : IAsyncLifetime
{
    private const int PackBlockSize = 64 * 1024;

    private readonly Dictionary<ExclusionFilters, IFileProvider> _physical = [];
    private readonly Dictionary<ExclusionFilters, PackFileProvider> _packs = [];
    private readonly Dictionary<ExclusionFilters, PreloadedFileProvider> _preloaded = [];

    public FileProviderFixture()
    {
        Root = Path.Combine(Path.GetTempPath(), "fastload-tests", Guid.NewGuid().ToString("N"));
        Folder = Path.Combine(Root, "site");
        PackPath = Path.Combine(Root, "site.fpk");
    }

    public string Root { get; }

    public string Folder { get; }

    public string PackPath { get; }

    /// <summary>Gets every regular file of the folder: name with '/' -> contents.</summary>
    public Dictionary<string, byte[]> Files { get; } = new(StringComparer.Ordinal);

    /// <summary>Gets the entries of <c>bad/</c> that hold no file to serve (Linux only): a FIFO, a dangling link, a link to a folder.</summary>
    public static string[] SpecialEntries { get; } = OperatingSystem.IsLinux() ? ["dangling", "fifo", "linked/"] : [];

    /// <summary>Gets the time every file and folder of the site was last written: long before any test runs.</summary>
    public static DateTimeOffset SiteTime { get; } = new(2021, 3, 4, 5, 6, 7, TimeSpan.Zero);

    public IFileProvider Physical(ExclusionFilters filters) => _physical[filters];

    public PackFileProvider Pack(ExclusionFilters filters) => _packs[filters];

    public PreloadedFileProvider Preloaded(ExclusionFilters filters) => _preloaded[filters];

    public string PathOf(string name) => Path.Combine(Folder, name);

    public async ValueTask InitializeAsync()
    {
        Add("empty.txt", 0);
        Add("one.bin", 1);
        Add("Case.txt", 10);
        Add("name with space.txt", 33);
        Add("ünïcødé.json", 44);
        Add(".dotfile", 5);
        Add(".hidden/secret.txt", 6);
        Add("a.txt", 3);
        Add("a/4095.bin", 4095);
        Add("a/4096.bin", 4096);
        Add("a/4097.bin", 4097);
        Add("a/.dot", 7);
        Add("a/.inner/x.txt", 8);
        Add("a/b/c/deep.json", 100);
        Add("big/multi-block.bin", (3 * PackBlockSize) + 17);
        Add("big/several-mib.bin", (3 * 1024 * 1024) + 5);
        Add("folders/x.txt", 9);
        Directory.CreateDirectory(PathOf("folders/empty"));
        Add("bad/good.txt", 11);
        if (OperatingSystem.IsLinux())
        {
            File.CreateSymbolicLink(PathOf("bad/dangling"), PathOf("bad/nowhere"));
            Directory.CreateSymbolicLink(PathOf("bad/linked"), PathOf("a/b"));
            Native.CreateFifo(PathOf("bad/fifo"));
        }

        // Folders last: writing into a folder moves its time.
        foreach (string folder in Directory.EnumerateDirectories(Folder, "*", SearchOption.AllDirectories).Where(f => !new DirectoryInfo(f).Attributes.HasFlag(FileAttributes.ReparsePoint)))
        {
            Directory.SetLastWriteTimeUtc(folder, SiteTime.UtcDateTime);
        }

        await PackWriter.CreateAsync(PackPath, Folder, new PackOptions { BlockSize = PackBlockSize, SkipSpecialFiles = true });
        foreach (ExclusionFilters filters in (ExclusionFilters[])[ExclusionFilters.None, ExclusionFilters.Sensitive])
        {
            _physical[filters] = new PhysicalFileProvider(Folder, filters);
            _packs[filters] = await PackFileProvider.OpenAsync(PackPath, filters: filters);
            _preloaded[filters] = await PreloadedFileProvider.LoadAsync(Folder, filters: filters);
        }
    }

    public async ValueTask DisposeAsync()
    {
        foreach (IFileProvider physical in _physical.Values)
        {
            (physical as IDisposable)?.Dispose();
        }

        foreach (PackFileProvider pack in _packs.Values)
        {
            await pack.DisposeAsync();
        }

        try
        {
            Directory.Delete(Root, recursive: true);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // A leftover temporary directory must not fail a test.
        }
    }

    private void Add(string name, int length)
    {
        // Half compressible text, half random, so that packed blocks are both compressed and stored raw.
        byte[] data = new byte[length];
        new Random(name.Length + length).NextBytes(data);
        for (int i = 0; i < length / 2; i++)
        {
            data[i] = (byte)('a' + (i % 7));
        }

        string path = PathOf(name);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllBytes(path, data);
        File.SetLastWriteTimeUtc(path, SiteTime.UtcDateTime.AddMinutes(Files.Count));
        Files.Add(name, data);
    }
}

[CollectionDefinition(Name)]
public sealed class FileProviderCollection : ICollectionFixture<FileProviderFixture>
{
    public const string Name = "File providers";
}
