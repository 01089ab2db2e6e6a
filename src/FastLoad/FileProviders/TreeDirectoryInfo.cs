using Microsoft.Extensions.FileProviders;

namespace FastLoad.FileProviders;

/// <summary>A folder of a <see cref="FileTree"/>, as a directory listing shows it.</summary>
internal sealed class TreeDirectoryInfo(string name, DateTimeOffset lastModified) : IFileInfo
{
    public bool Exists => true;

    public long Length => -1;

    public string? PhysicalPath => null;

    public string Name { get; } = name;

    public DateTimeOffset LastModified { get; } = lastModified;

    public bool IsDirectory => true;

    public Stream CreateReadStream() => throw new InvalidOperationException($"'{Name}' is a directory; it has no contents to read.");
}
