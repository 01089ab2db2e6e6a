using System.Buffers;
using System.Buffers.Binary;
using K4os.Compression.LZ4;

namespace FastLoad.Benchmarks;

/// <summary>
/// An LZ4 copy of a file as independent 1 MiB blocks, each written as [compressed length][raw length][bytes], so that
/// a reader can hand each block to a decoder while it reads the next (seed 002's "compression" case).
/// </summary>
internal static class Lz4File
{
    private const int BlockSize = 1 << 20;
    private const int HeaderSize = 8;

    /// <summary>Writes the compressed copy once (next to the original); returns its path.</summary>
    public static string GetOrCreate(string original)
    {
        string path = original + ".lz4";
        if (File.Exists(path))
        {
            return path;
        }

        byte[] raw = new byte[BlockSize];
        byte[] compressed = new byte[HeaderSize + LZ4Codec.MaximumOutputSize(BlockSize)];
        string partial = path + ".partial";
        using (FileStream input = File.OpenRead(original))
        using (var output = new FileStream(partial, FileMode.Create, FileAccess.Write))
        {
            int read;
            while ((read = input.ReadAtLeast(raw, BlockSize, throwOnEndOfStream: false)) > 0)
            {
                int length = LZ4Codec.Encode(raw.AsSpan(0, read), compressed.AsSpan(HeaderSize), LZ4Level.L00_FAST);
                if (length <= 0)
                {
                    throw new InvalidOperationException($"LZ4Codec.Encode failed ({length}).");
                }

                BinaryPrimitives.WriteInt32LittleEndian(compressed, length);
                BinaryPrimitives.WriteInt32LittleEndian(compressed.AsSpan(4), read);
                output.Write(compressed, 0, HeaderSize + length);
            }
        }

        File.Move(partial, path);
        return path;
    }

    /// <summary>Reads the copy sequentially and decodes each block on the thread pool while the next is read; returns the decoded length.</summary>
    public static long ReadDecoding(string path, byte[] destination)
    {
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, BlockSize);
        Span<byte> header = stackalloc byte[HeaderSize];
        var decodes = new List<Task>();
        long offset = 0;
        while (stream.ReadAtLeast(header, HeaderSize, throwOnEndOfStream: false) == HeaderSize)
        {
            int compressedLength = BinaryPrimitives.ReadInt32LittleEndian(header);
            int rawLength = BinaryPrimitives.ReadInt32LittleEndian(header[4..]);
            if (compressedLength <= 0 || rawLength is <= 0 or > BlockSize || offset + rawLength > destination.Length)
            {
                throw new InvalidDataException($"Bad LZ4 block header at raw offset {offset} in {path}.");
            }

            byte[] block = ArrayPool<byte>.Shared.Rent(compressedLength);
            stream.ReadExactly(block, 0, compressedLength);
            long at = offset;
            decodes.Add(Task.Run(() =>
            {
                int written = LZ4Codec.Decode(block.AsSpan(0, compressedLength), destination.AsSpan((int)at, rawLength));
                if (written != rawLength)
                {
                    throw new InvalidDataException($"LZ4 block decoded to {written} bytes, expected {rawLength}.");
                }

                ArrayPool<byte>.Shared.Return(block);
            }));
            offset += rawLength;
        }

        Task.WaitAll(decodes);
        return offset;
    }
}
