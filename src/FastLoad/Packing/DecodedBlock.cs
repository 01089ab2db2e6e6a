using System.Buffers;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Packing;

/// <summary>
/// One block of a whole-pack load, as its worker thread leaves it: the block's raw bytes, with the hashes of the
/// entries that start and end in it already checked. Checked on the block's thread, so that hashing runs on every core
/// beside the decoding; the consumer's thread only copies each entry into a buffer of its own and hands it over.
/// </summary>
/// <remarks>
/// The copy stays on the consumer's thread on purpose: an entry's buffer is rented there and, in the usual loop,
/// returned there before the next is rented, so the pool's per-thread cache serves the same warm buffer again. Buffers
/// rented ahead on the block threads doubled the page faults of a 7,990-entry load (fresh memory each time).
/// </remarks>
internal sealed class DecodedBlock
{
    private bool _returned;

    private DecodedBlock(byte[] raw) => Raw = raw;

    /// <summary>The block's raw bytes, rented until <see cref="Return"/>.</summary>
    public byte[] Raw { get; }

    /// <summary>How many of the entries that start in the block, from the first, lie wholly in it and match their hash.</summary>
    public int Verified { get; private set; }

    /// <summary>The hash mismatch of the entry after the first <see cref="Verified"/>, thrown once those are handed over.</summary>
    public InvalidDataException? Failure { get; private set; }

    /// <summary>
    /// Reads and decodes block <paramref name="block"/>, then checks the hashes of entries <paramref name="firstEntry"/>
    /// up to <paramref name="endEntry"/> (those that start in it) until one goes on past it or does not match.
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
        Func<PackEntry, InvalidDataException> hashMismatch)
    {
        var decoded = new DecodedBlock(PackBlockReader.ReadAndDecode(handle, packPath, blocks[block], block, pool));
        long blockEnd = blockStart + blocks[block].RawLength;
        for (int i = firstEntry; i < endEntry && entries[i].DataOffset + entries[i].Length <= blockEnd; i++)
        {
            PackEntry entry = entries[i];
            if (PackHash.Hash(decoded.Raw.AsSpan((int)(entry.DataOffset - blockStart), (int)entry.Length)) != entry.ContentHash)
            {
                decoded.Failure = hashMismatch(entry);
                break;
            }

            decoded.Verified++;
        }

        return decoded;
    }

    /// <summary>Returns the block's raw bytes to the pool; later calls do nothing.</summary>
    public void Return(ArrayPool<byte> pool)
    {
        if (!_returned)
        {
            _returned = true;
            pool.Return(Raw);
        }
    }
}
