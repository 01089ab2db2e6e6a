using System.IO.MemoryMappedFiles;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Reading;

/// <summary>
/// Reads one whole file with the strategy its size and the options call for: one read for a small file; several
/// positional reads in flight for a large one, buffered or unbuffered; or a memory mapping.
/// </summary>
internal static class FileReader
{
    public static FileContents Read(string path, ReadSettings settings, CancellationToken cancellationToken)
    {
        SafeFileHandle handle = ReadableFile.Open(path, out long length);
        try
        {
            if (!settings.IsLarge(length))
            {
                if (settings.UsesNativeBlock(length))
                {
                    return ReadIntoNativeBlock(handle, path, length, settings.ChunkSize, 1, cancellationToken);
                }

                byte[] buffer = WholeFileReader.Read(handle, path, length, settings.Pool, out int read, cancellationToken);
                return new PooledContents(buffer, read, settings.Pool);
            }

            if (settings.MemoryMapped)
            {
                return Map(ref handle, length);
            }

            if (settings.WantsUnbuffered(length) && UnbufferedReader.TryRead(handle, path, length, settings, cancellationToken) is { } direct)
            {
                return direct;
            }

            return ReadLarge(handle, path, length, settings, cancellationToken);
        }
        finally
        {
            handle?.Dispose();
        }
    }

    private static NativeContents ReadIntoNativeBlock(SafeFileHandle handle, string path, long length, int chunkSize, int readsInFlight, CancellationToken cancellationToken)
    {
        NativeContents block = Internal.NativeBlockPool.Rent(length);
        try
        {
            block.Truncate(ChunkedReader.Read(handle, path, length, chunkSize, readsInFlight, 1, block.Slice, cancellationToken, sequentialStreams: true));
            return block;
        }
        catch
        {
            block.Dispose();
            throw;
        }
    }

    private static FileContents ReadLarge(SafeFileHandle handle, string path, long length, ReadSettings settings, CancellationToken cancellationToken)
    {
        if (settings.UsesNativeBlock(length))
        {
            return ReadIntoNativeBlock(handle, path, length, settings.ChunkSize, settings.ReadsInFlight, cancellationToken);
        }

        if (length <= Array.MaxLength)
        {
            byte[] buffer = settings.Pool.Rent((int)length);
            try
            {
                long read = ChunkedReader.Read(
                    handle, path, length, settings.ChunkSize, settings.ReadsInFlight, 1, (offset, count) => buffer.AsSpan((int)offset, count), cancellationToken, sequentialStreams: true);
                return new PooledContents(buffer, (int)read, settings.Pool);
            }
            catch
            {
                settings.Pool.Return(buffer);
                throw;
            }
        }

        var segments = new SegmentedContents(length, settings.Pool);
        try
        {
            segments.Truncate(ChunkedReader.Read(handle, path, length, settings.ChunkSize, settings.ReadsInFlight, 1, segments.Slice, cancellationToken, sequentialStreams: true));
            return segments;
        }
        catch
        {
            segments.Dispose();
            throw;
        }
    }

    /// <summary>Maps the file read-only; pages are read when first touched. Takes over the handle.</summary>
    private static unsafe FileContents Map(ref SafeFileHandle handle, long length)
    {
        MemoryMappedFile mapping = MemoryMappedFile.CreateFromFile(handle, mapName: null, 0, MemoryMappedFileAccess.Read, HandleInheritability.None, leaveOpen: false);
        handle = null!; // Owned by the mapping now.
        MemoryMappedViewAccessor? view = null;
        try
        {
            view = mapping.CreateViewAccessor(0, 0, MemoryMappedFileAccess.Read);
            byte* pointer = null;
            view.SafeMemoryMappedViewHandle.AcquirePointer(ref pointer);
            MemoryMappedViewAccessor acquired = view;
            return NativeContents.Wrap(pointer + view.PointerOffset, length, () =>
            {
                acquired.SafeMemoryMappedViewHandle.ReleasePointer();
                acquired.Dispose();
                mapping.Dispose();
            });
        }
        catch
        {
            view?.Dispose();
            mapping.Dispose();
            throw;
        }
    }
}
