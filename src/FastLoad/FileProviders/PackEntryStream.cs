using FastLoad.Packing;

namespace FastLoad.FileProviders;

/// <summary>
/// A read-only, seekable stream over one pack entry. Each read decodes only the blocks it touches, through the pack's
/// block cache, so memory stays within the cache's bound however large the entry and wherever the reads fall. A
/// synchronous read runs on the caller's thread; an asynchronous one on a thread-pool thread.
/// </summary>
/// <remarks>
/// Every block read is checked against the hash of its stored bytes (<see cref="PackBlockReader"/>), wherever the
/// reads fall. Where the reader checks entries (<see cref="PackReader.ChecksEntryHashes"/>: asked for, or a pack
/// without block hashes), the entry's hash is also checked at the first read when the entry lies in one block; an entry
/// over several blocks is hashed as it is read in order from its start, and the read that reaches its end throws
/// <see cref="InvalidDataException"/> if the hash does not match. A stream that seeks elsewhere before its end stops
/// that check (a random read cannot hash the whole entry without decoding it all).
/// </remarks>
internal sealed class PackEntryStream(PackReader reader, PackEntry entry) : Stream
{
    private long _position;
    private bool _started;
    private PackHash.Incremental? _hash;
    private long _hashed;
    private bool _disposed;

    public override bool CanRead => !_disposed;

    public override bool CanSeek => !_disposed;

    public override bool CanWrite => false;

    public override long Length
    {
        get
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            return entry.Length;
        }
    }

    public override long Position
    {
        get
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            return _position;
        }

        set
        {
            ArgumentOutOfRangeException.ThrowIfNegative(value);
            ObjectDisposedException.ThrowIf(_disposed, this);
            _position = value;
        }
    }

    public override int Read(byte[] buffer, int offset, int count)
    {
        ValidateBufferArguments(buffer, offset, count);
        return Read(buffer.AsSpan(offset, count));
    }

    public override int Read(Span<byte> buffer)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        return ReadCore(buffer);
    }

    public override int ReadByte()
    {
        Span<byte> one = stackalloc byte[1];
        return Read(one) == 1 ? one[0] : -1;
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
    {
        ValidateBufferArguments(buffer, offset, count);
        return ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();
    }

    public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled<int>(cancellationToken);
        }

        if (buffer.IsEmpty || _position >= entry.Length)
        {
            return ValueTask.FromResult(0);
        }

        // Reading a block may wait for the disk and decoding it takes CPU: off the caller's thread, as FileStream does.
        return new ValueTask<int>(Task.Run(() => ReadCore(buffer.Span), cancellationToken));
    }

    public override long Seek(long offset, SeekOrigin origin)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        long position = origin switch
        {
            SeekOrigin.Begin => offset,
            SeekOrigin.Current => _position + offset,
            SeekOrigin.End => entry.Length + offset,
            _ => throw new ArgumentOutOfRangeException(nameof(origin)),
        };
        if (position < 0)
        {
            throw new IOException("An attempt was made to move the position before the beginning of the stream.");
        }

        _position = position;
        return position;
    }

    public override void Flush()
    {
    }

    public override void SetLength(long value) => throw new NotSupportedException("A pack entry is read-only.");

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException("A pack entry is read-only.");

    protected override void Dispose(bool disposing)
    {
        _disposed = true;
        _hash = null;
        base.Dispose(disposing);
    }

    private int ReadCore(Span<byte> buffer)
    {
        if (buffer.IsEmpty || _position >= entry.Length)
        {
            return 0;
        }

        if (!_started)
        {
            _started = true;
            if (reader.LiesInOneBlock(entry))
            {
                reader.VerifyInOneBlock(entry);
            }
            else if (reader.ChecksEntryHashes)
            {
                _hash = new PackHash.Incremental();
            }
        }

        int read = reader.ReadAt(entry, _position, buffer);
        if (_hash is not null)
        {
            CheckInOrder(buffer[..read]);
        }

        _position += read;
        return read;
    }

    /// <summary>Hashes what was read while the entry is read in order; the read that reaches its end compares.</summary>
    private void CheckInOrder(ReadOnlySpan<byte> read)
    {
        if (_position != _hashed)
        {
            _hash = null;
            return;
        }

        _hash!.Append(read);
        _hashed += read.Length;
        if (_hashed == entry.Length)
        {
            ulong hash = _hash.Complete();
            _hash = null;
            if (hash != entry.ContentHash)
            {
                throw reader.HashMismatch(entry);
            }
        }
    }
}
