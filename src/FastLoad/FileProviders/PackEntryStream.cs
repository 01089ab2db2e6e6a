namespace FastLoad.FileProviders;

/// <summary>
/// A read-only, seekable stream over one pack entry. The entry is read and decoded (through the pack's block cache) at
/// the first read, asynchronously when that read is, so that a stream opened and never read costs nothing.
/// </summary>
internal sealed class PackEntryStream(PackReader reader, PackEntry entry) : Stream
{
    private ReadOnlyMemory<byte>? _data;
    private long _position;
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
        // Synchronous callers (configuration providers) wait for the decode; asynchronous ones never block.
        if (_data is null && _position < entry.Length && !buffer.IsEmpty)
        {
            _data = reader.ReadEntryAsync(entry.Name).GetAwaiter().GetResult();
        }

        return CopyTo(buffer);
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
    {
        ValidateBufferArguments(buffer, offset, count);
        return ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();
    }

    public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_data is null && _position < entry.Length && !buffer.IsEmpty)
        {
            _data = await reader.ReadEntryAsync(entry.Name, cancellationToken).ConfigureAwait(false);
        }

        return CopyTo(buffer.Span);
    }

    public override async Task CopyToAsync(Stream destination, int bufferSize, CancellationToken cancellationToken)
    {
        ValidateCopyToArguments(destination, bufferSize);
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_position >= entry.Length)
        {
            return;
        }

        // The entry is already one block of memory: written out at once, not through a copy buffer.
        _data ??= await reader.ReadEntryAsync(entry.Name, cancellationToken).ConfigureAwait(false);
        ReadOnlyMemory<byte> rest = _data.Value[(int)_position..];
        _position = entry.Length;
        await destination.WriteAsync(rest, cancellationToken).ConfigureAwait(false);
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
        _data = null;
        base.Dispose(disposing);
    }

    private int CopyTo(Span<byte> buffer)
    {
        if (_data is not { } data || _position >= data.Length)
        {
            return 0;
        }

        int count = (int)Math.Min(buffer.Length, data.Length - _position);
        data.Span.Slice((int)_position, count).CopyTo(buffer);
        _position += count;
        return count;
    }
}
