using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.FileProviders.Physical;

namespace FastLoad.Tests.FileProviders;

/// <summary>
/// One folder with the awkward cases (empty, block-boundary and multi-block sizes, deep, dot-prefixed, spaces, non-ASCII,
/// case), a pack of it over small blocks, and a preloaded copy of it: the three providers the conformance suite compares.
/// </summary>
public sealed class FileProviderFixture : IAsyncLifetime
{
    private const int PackBlockSize = 64 * 1024;

    public FileProviderFixture()
    {
        Root = Path.Combine(Path.GetTempPath(), "fastload-tests", Guid.NewGuid().ToString("N"));
        Folder = Path.Combine(Root, "site");
        PackPath = Path.Combine(Root, "site.fpk");
    }

    public string Root { get; }

    public string Folder { get; }

    public string PackPath { get; }

    /// <summary>Gets every file of the folder: name with '/' -> contents.</summary>
    public Dictionary<string, byte[]> Files { get; } = new(StringComparer.Ordinal);

    public PhysicalFileProvider Physical { get; private set; } = null!;

    public PackFileProvider Pack { get; private set; } = null!;

    public PreloadedFileProvider Preloaded { get; private set; } = null!;

    public async ValueTask InitializeAsync()
    {
        Add("empty.txt", 0);
        Add("one.bin", 1);
        Add("Case.txt", 10);
        Add("name with space.txt", 33);
        Add("ünïcødé.json", 44);
        Add(".dotfile", 5);
        Add(".hidden/secret.txt", 6);
        Add("a/4095.bin", 4095);
        Add("a/4096.bin", 4096);
        Add("a/4097.bin", 4097);
        Add("a/b/c/deep.json", 100);
        Add("big/multi-block.bin", (3 * PackBlockSize) + 17);
        Add("big/several-mib.bin", (3 * 1024 * 1024) + 5);
        await PackWriter.CreateAsync(PackPath, Folder, new PackOptions { BlockSize = PackBlockSize });
        Physical = new PhysicalFileProvider(Folder, ExclusionFilters.None);
        Pack = await PackFileProvider.OpenAsync(PackPath);
        Preloaded = await PreloadedFileProvider.LoadAsync(Folder);
    }

    public async ValueTask DisposeAsync()
    {
        Physical?.Dispose();
        if (Pack is not null)
        {
            await Pack.DisposeAsync();
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

        string path = Path.Combine(Folder, name);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllBytes(path, data);
        Files.Add(name, data);
    }
}

[CollectionDefinition(Name)]
public sealed class FileProviderCollection : ICollectionFixture<FileProviderFixture>
{
    public const string Name = "File providers";
}
