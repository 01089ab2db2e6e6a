using Microsoft.Extensions.FileProviders;

namespace FastLoad.FileProviders;

/// <summary>A file of a <see cref="PreloadedFileProvider"/>: its contents, held in memory.</summary>
internal sealed class MemoryFileInfo(string name, byte[] contents, DateTimeOffset lastModified) : IFileInfo
{
    public bool Exists => true;

    public long Length => contents.Length;

    public string? PhysicalPath => null;

    public string Name { get; } = name[(name.LastIndexOf('/') + 1)..];

    public DateTimeOffset LastModified => lastModified;

    public bool IsDirectory => false;

    public Stream CreateReadStream() => new MemoryStream(contents, writable: false);
}
