using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

/// <summary>
/// Reads one whole file with the strategy its size and the options call for: one read for a small file; several
/// positional reads in flight for a large one, buffered or unbuffered; or a memory mapping.
/// </summary>
internal static class FileReader
{
    public static FileContents Read(string path, ReadSettings settings, CancellationToken cancellationToken) =>
        Read(ReadableFile.Open(path, out long length), path, length, settings, cancellationToken);

    /// <summary>Reads the file <paramref name="handle"/> refers to, <paramref name="length"/> bytes when opened; disposes the handle.</summary>
    public static FileContents Read(SafeFileHandle handle, string path, long length, ReadSettings settings, CancellationToken cancellationToken)
    {
        try
        {
            if (!settings.MemoryMapped && length >= AvailableMemory.CheckThreshold && settings.AvailableMemory() is long available && length > available)
            {
                throw AvailableMemory.TooLarge(path, length, available);
            }

            if (!settings.IsLarge(length))
            {
                return settings.UsesNativeBlock(length)
                    ? ReadWhole(NativeBlockPool.Rent(length), handle, path, length, cancellationToken)
                    : WholeFileReader.Read(handle, path, length, settings.Pool, cancellationToken);
            }

            if (settings.MemoryMapped)
            {
                return MappedFile.Map(ref handle, length);
            }

            if (settings.WantsUnbuffered(length) && UnbufferedReader.TryRead(handle, path, length, settings, cancellationToken) is { } direct)
            {
                return direct;
            }

            FileContents contents = settings.UsesNativeBlock(length) ? NativeBlockPool.Rent(length)
                : length <= Array.MaxLength ? new PooledContents(settings.Pool.Rent((int)length), (int)length, settings.Pool)
                : new SegmentedContents(length, settings.Pool);
            return ChunkedReader.ReadInto(contents, handle, path, length, 1, cancellationToken);
        }
        finally
        {
            handle?.Dispose();
        }
    }

    /// <summary>One read (looped on short reads) of a file smaller than a chunk into <paramref name="contents"/>.</summary>
    private static FileContents ReadWhole(FileContents contents, SafeFileHandle handle, string path, long length, CancellationToken cancellationToken)
    {
        try
        {
            cancellationToken.ThrowIfCancellationRequested();
            contents.Truncate(ChunkedReader.ReadFully(handle, path, contents.Slice(0, (int)length), 0));
            return contents;
        }
        catch
        {
            contents.Dispose();
            throw;
        }
    }
}
