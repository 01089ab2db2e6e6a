using Microsoft.Extensions.FileProviders;

namespace FastLoad.FileProviders;

/// <summary>An entry of a pack served by <see cref="PackFileProvider"/>.</summary>
internal sealed class PackFileInfo(PackReader reader, PackEntry entry, DateTimeOffset lastModified) : IFileInfo
{
    public bool Exists => true;

    public long Length => entry.Length;

    public string? PhysicalPath => null;

    public string Name { get; } = entry.Name[(entry.Name.LastIndexOf('/') + 1)..];

    public DateTimeOffset LastModified => lastModified;

    public bool IsDirectory => false;

    public Stream CreateReadStream() => new PackEntryStream(reader, entry);
}
