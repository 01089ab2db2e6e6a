using System.Security.Cryptography;
using System.Text;

namespace FastLoad.Shared;

/// <summary>
/// The checksum of a load, the same whatever order files arrive in: lowercase hex SHA-256 of the text made of each
/// loaded file's lowercase hex SHA-256, sorted ordinally, each followed by '\n'.
/// </summary>
internal sealed class LoadChecksum
{
    private readonly List<string> _fileHashes = [];
    private readonly object _gate = new();

    public void Add(ReadOnlySpan<byte> contents)
    {
        string hash = Convert.ToHexStringLower(SHA256.HashData(contents));
        lock (_gate)
        {
            _fileHashes.Add(hash);
        }
    }

    public string Finish()
    {
        lock (_gate)
        {
            _fileHashes.Sort(StringComparer.Ordinal);
            var text = new StringBuilder(_fileHashes.Count * 65);
            foreach (string hash in _fileHashes)
            {
                text.Append(hash).Append('\n');
            }

            return Convert.ToHexStringLower(SHA256.HashData(Encoding.ASCII.GetBytes(text.ToString())));
        }
    }
}
