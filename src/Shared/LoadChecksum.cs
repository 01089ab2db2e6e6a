using System.Buffers;
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

    public void Add(ReadOnlySpan<byte> contents) => Record(SHA256.HashData(contents));

    /// <summary>Adds a file of any size: a LoadedFile over 2 GiB has its contents only as a sequence.</summary>
    public void Add(in ReadOnlySequence<byte> contents)
    {
        using var sha256 = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        foreach (ReadOnlyMemory<byte> segment in contents)
        {
            sha256.AppendData(segment.Span);
        }

        Record(sha256.GetHashAndReset());
    }

    private void Record(byte[] digest)
    {
        string hash = Convert.ToHexStringLower(digest);
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
