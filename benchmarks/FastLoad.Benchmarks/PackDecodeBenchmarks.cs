using BenchmarkDotNet.Attributes;
using FastLoad.Packing;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Benchmarks;

/// <summary>
/// What a warm whole-pack load costs beyond the work it cannot skip: the pack already in memory, every block checked
/// against its hash and decoded with the load's own hash and decoder (in a pack without block hashes, every entry's
/// hash checked), on one thread per core, each decoding into one buffer it reuses (the floor), beside
/// <see cref="PackReader.LoadAllAsync"/> on the same pack with the page cache warm. The ratio is the load's overhead:
/// reading from the page cache, its buffers, threads and hand-over. The set is FASTLOAD_BENCH_FOLDER (a real tree such
/// as /usr/include), else the 10,000-file text-like set of <see cref="PackBenchmarks"/>:
/// <c>dotnet run -c Release --project benchmarks/FastLoad.Benchmarks -- --filter '*PackDecode*'</c>.
/// </summary>
public class PackDecodeBenchmarks
{
    private string _pack = string.Empty;
    private byte[] _file = [];
    private Block[] _blocks = [];
    private int _blockSize;
    private long _bytes;

    [GlobalSetup]
    public void PackAndReadIntoMemory()
    {
        string name = BenchmarkData.Folder is { } folder ? $"folder-{Path.GetFileName(Path.TrimEndingDirectorySeparator(folder))}" : "small-10000-text";
        IReadOnlyList<string> paths = BenchmarkData.Folder is { } root
            ? BenchmarkData.FilesUnder(root)
            : BenchmarkData.GetOrCreate(name, 10_000, 2 * 1024, 128 * 1024, compressible: true);
        _pack = BenchmarkData.GetOrCreatePack(name, paths);
        _file = File.ReadAllBytes(_pack);
        (_blockSize, _blocks) = ReadIndex(_pack);
        _bytes = _blocks.Sum(block => block.Entries.Sum(entry => (long)entry.Length)) + _blocks.Sum(block => block.SpanningBytes);
    }

    /// <summary>Every block hashed and decoded (or every entry that lies in one block hashed), from memory, into reused buffers.</summary>
    [Benchmark(Baseline = true, Description = "decode + hash from memory (floor)")]
    public long DecodeAndHashFromMemory()
    {
        int next = -1;
        long bytes = 0;
        Thread[] threads = new Thread[Math.Max(2, Environment.ProcessorCount)];
        for (int t = 0; t < threads.Length; t++)
        {
            threads[t] = new Thread(() =>
            {
                byte[] raw = new byte[_blockSize];
                long mine = 0;
                int k;
                while ((k = Interlocked.Increment(ref next)) < _blocks.Length)
                {
                    mine += DecodeAndHash(_blocks[k], raw);
                }

                Interlocked.Add(ref bytes, mine);
            });
            threads[t].Start();
        }

        foreach (Thread thread in threads)
        {
            thread.Join();
        }

        return bytes + _blocks.Sum(block => block.SpanningBytes);
    }

    /// <summary>The same pack loaded from a warm page cache, every entry disposed at once.</summary>
    [Benchmark(Description = "PackReader.LoadAllAsync, warm")]
    public Task<long> LoadAllWarm() => PackBenchmarks.LoadAllAsync(_pack, _bytes);

    private long DecodeAndHash(Block block, byte[] raw)
    {
        ReadOnlySpan<byte> stored = _file.AsSpan((int)block.Offset, block.StoredLength);
        if (block.StoredHash is { } storedHash && PackHash.Hash(stored) != storedHash)
        {
            throw new InvalidDataException($"The block at {block.Offset} does not match its hash.");
        }

        if (block.Codec == 0)
        {
            stored.CopyTo(raw);
        }
        else if (Lz4BlockDecoder.Decode(stored, raw.AsSpan(0, block.RawLength)) != block.RawLength)
        {
            throw new InvalidDataException($"Block at {block.Offset} does not decode.");
        }

        long bytes = 0;
        foreach ((int offset, int length, ulong hash) in block.Entries)
        {
            if (block.StoredHash is null && PackHash.Hash(raw.AsSpan(offset, length)) != hash)
            {
                throw new InvalidDataException($"An entry at {offset} in the block at {block.Offset} does not match its hash.");
            }

            bytes += length;
        }

        return bytes;
    }

    /// <summary>The pack's blocks, each with the entries that lie wholly in it, as the reader's own index parser reads them.</summary>
    private static (int BlockSize, Block[] Blocks) ReadIndex(string pack)
    {
        using SafeFileHandle handle = File.OpenHandle(pack);
        PackIndex index = PackIndex.Read(handle, pack, RandomAccess.GetLength(handle));
        Block[] blocks = [.. index.Blocks.Select(block => new Block(block.Offset, block.StoredLength, block.RawLength, block.Codec, block.StoredHash))];
        foreach (PackEntry entry in index.Entries)
        {
            int block = (int)(entry.DataOffset / index.BlockSize);
            int offset = (int)(entry.DataOffset - ((long)block * index.BlockSize));
            if (offset + entry.Length <= index.BlockSize)
            {
                blocks[block].Entries.Add((offset, (int)entry.Length, entry.ContentHash));
            }
            else
            {
                // Over a block edge: the load assembles it from several blocks; the floor only counts its bytes.
                blocks[block].SpanningBytes += entry.Length;
            }
        }

        return (index.BlockSize, blocks);
    }

    private sealed class Block(long offset, int storedLength, int rawLength, byte codec, ulong? storedHash)
    {
        public long Offset { get; } = offset;

        public int StoredLength { get; } = storedLength;

        public int RawLength { get; } = rawLength;

        public byte Codec { get; } = codec;

        public ulong? StoredHash { get; } = storedHash;

        public List<(int Offset, int Length, ulong Hash)> Entries { get; } = [];

        public long SpanningBytes { get; set; }
    }
}
