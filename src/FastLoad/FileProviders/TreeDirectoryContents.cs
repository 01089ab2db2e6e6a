using System.Collections;
using Microsoft.Extensions.FileProviders;

namespace FastLoad.FileProviders;

/// <summary>The files and folders directly inside one folder of a <see cref="FileTree"/>.</summary>
internal sealed class TreeDirectoryContents(List<IFileInfo> entries) : IDirectoryContents
{
    public bool Exists => true;

    public IEnumerator<IFileInfo> GetEnumerator() => entries.GetEnumerator();

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}
