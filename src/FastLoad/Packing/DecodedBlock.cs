using System.Buffers;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Packing;

/// <summary>
/// One block of a whole-pack load, as its worker thread leaves it: the block's raw bytes, checked against the hash of
/// its stored bytes before decoding, and the entries that start and end in it counted (and, where entries are checked,
/// their hashes checked). Done on the block's thread, so that hashing runs on every core beside the decoding; the
/// consumer's thread hands each of those entries over as a slice of the block (<see cref="PackBlockSlice"/>), without a copy.
/// </summary>
/// <remarks>
/// The block's buffer is shared by the load and by every slice handed over: each holds one reference, and the buffer
/// goes back to the pool when the last is released. Slices instead of a copy per entry: a copy wrote every entry into
/// memory of its own, which in a new process faults in page by page.
/// </remarks>
internal sealed class DecodedBlock
{
    private readonly ArrayPool<byte> _pool;
    private int _references = 1;

    private DecodedBlock(byte[] raw, ArrayPool<byte> pool)
    {
        Raw = raw;
        _pool = pool;
    }

    /// <summary>The block's raw bytes, rented until the last reference is released.</summary>
    public byte[] Raw { get; }

    /// <summary>How many of the entries that start in the block, from the first, lie wholly in it (and match their hash, where entries are checked).</summary>
    public int Verified { get; private set; }

    /// <summary>The hash mismatch of the entry after the first <see cref="Verified"/>, thrown once those are handed over.</summary>
    public InvalidDataException? Failure { get; private set; }

    /// <summary>Reads and decodes block <paramref name="block"/> into a buffer rented from <paramref name="pool"/>; no entry is checked yet.</summary>
    public static DecodedBlock Read(SafeFileHandle handle, string packPath, PackBlock[] blocks, int block, ArrayPool<byte> pool) =>
        new(PackBlockReader.ReadAndDecode(handle, packPath, blocks[block], block, pool), pool);

    /// <summary>
    /// Reads and decodes block <paramref name="block"/>, or waits for <paramref name="readAlready"/> (the same block, from
    /// <see cref="Read"/>), then counts entries <paramref name="firstEntry"/> up to <paramref name="endEntry"/> (those that
    /// start in it) until one goes on past it or, with <paramref name="hashMismatch"/> (entries checked), does not match its hash.
    /// </summary>
    public static DecodedBlock Decode(
        SafeFileHandle handle,
        string packPath,
        PackBlock[] blocks,
        int block,
        long blockStart,
        PackEntry[] entries,
        int firstEntry,
        int endEntry,
        ArrayPool<byte> pool,
        Func<PackEntry, InvalidDataException>? hashMismatch,
        Task<DecodedBlock>? readAlready = null)
    {
        DecodedBlock decoded = readAlready?.GetAwaiter().GetResult() ?? Read(handle, packPath, blocks, block, pool);
        decoded.Verify(blockStart, blocks[block].RawLength, entries, firstEntry, endEntry, hashMismatch);
        return decoded;
    }

    private void Verify(long blockStart, int rawLength, PackEntry[] entries, int firstEntry, int endEntry, Func<PackEntry, InvalidDataException>? hashMismatch)
    {
        long blockEnd = blockStart + rawLength;
        for (int i = firstEntry; i < endEntry && entries[i].DataOffset + entries[i].Length <= blockEnd; i++)
        {
            PackEntry entry = entries[i];
            if (hashMismatch is not null && PackHash.Hash(Raw.AsSpan((int)(entry.DataOffset - blockStart), (int)entry.Length)) != entry.ContentHash)
            {
                Failure = hashMismatch(entry);
                break;
            }

            Verified++;
        }
    }

    /// <summary>Adds a reference for a slice about to be handed over; the block must still be referenced.</summary>
    public void AddReference()
    {
        int before = Interlocked.Increment(ref _references) - 1;
        if (before <= 0)
        {
            throw new InvalidOperationException("A pack block was referenced after its buffer went back to the pool.");
        }
    }

    /// <summary>Releases one reference (the load's or a slice's); the last returns the block's buffer to the pool.</summary>
    public void Release()
    {
        int after = Interlocked.Decrement(ref _references);
        if (after == 0)
        {
            _pool.Return(Raw);
        }
        else if (after < 0)
        {
            throw new InvalidOperationException("A pack block was released more often than it was referenced.");
        }
    }
}
