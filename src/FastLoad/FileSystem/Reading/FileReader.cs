using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

/// <summary>
/// Reads one whole file with the strategy its size and the options call for: one read for a small file; several
/// positional reads in flight for a large one, buffered or unbuffered; or a memory mapping.
/// </summary>
internal static class FileReader
{
    public static FileContents Read(string path, ReadSettings settings, CancellationToken cancellationToken) =>
        Read(ReadableFile.Open(path, out long length), path, length, settings, grow: null, cancellationToken);

    /// <summary>Reads the file <paramref name="handle"/> refers to, <paramref name="length"/> bytes when opened; disposes the handle.</summary>
    /// <param name="handle">The open file.</param>
    /// <param name="path">Its path, for errors.</param>
    /// <param name="length">Its length when opened; 0 for a file read to its end, such as a pseudo file.</param>
    /// <param name="settings">The load's settings.</param>
    /// <param name="grow">For a file of length 0: told of each buffer it grows into, before it is taken (see <see cref="WholeFileReader.Read"/>).</param>
    /// <param name="cancellationToken">Stops the read.</param>
    public static FileContents Read(
        SafeFileHandle handle, string path, long length, ReadSettings settings, Action<long>? grow, CancellationToken cancellationToken) =>
        Read(handle, path, length, settings, grow, deviceWait: null, cancellationToken);

    /// <param name="handle">The open file; disposed here.</param>
    /// <param name="path">The path, for errors.</param>
    /// <param name="length">The length it had when opened.</param>
    /// <param name="settings">The load's read settings.</param>
    /// <param name="grow">For a file of length 0: told of each buffer it grows into.</param>
    /// <param name="deviceWait">
    /// Told when this read waits for the device, while nothing has yet: a small file is first read only from the page
    /// cache, which costs no second read where its bytes are cached. <see langword="null"/> when nobody asks.
    /// </param>
    /// <param name="cancellationToken">Stops the read.</param>
    public static FileContents Read(
        SafeFileHandle handle, string path, long length, ReadSettings settings, Action<long>? grow, DeviceWaitSignal? deviceWait, CancellationToken cancellationToken)
    {
        try
        {
            if (!settings.MemoryMapped && length >= AvailableMemory.CheckThreshold && settings.AvailableMemory() is long available && length > available)
            {
                throw AvailableMemory.TooLarge(path, length, available);
            }

            if (!settings.IsLarge(length))
            {
                // A file of length 0 is empty where its file system reports every file's length; otherwise (a pseudo
                // file) it is read to its end in growing arrays.
                return length > 0 ? ReadWhole(Rent(settings, length), handle, path, length, deviceWait, cancellationToken)
                    : IsEmpty(handle) ? EmptyContents.Instance
                    : WholeFileReader.Read(handle, path, length, settings.Pool, grow, cancellationToken);
            }

            // Large files read several ranges at once each; what their reads wait for is not worth a probe.
            deviceWait?.Set();

            if (settings.MemoryMapped)
            {
                return MappedFile.Map(ref handle, length);
            }

            if (settings.WantsUnbuffered(length) && UnbufferedReader.TryRead(handle, path, length, settings, cancellationToken) is { } direct)
            {
                return direct;
            }

            return ChunkedReader.ReadInto(Rent(settings, length), handle, path, length, 1, cancellationToken);
        }
        finally
        {
            handle?.Dispose();
        }
    }

    /// <summary>
    /// Whether a file that reports no bytes has none (<see cref="EmptyFiles"/>, Linux), rather than being a pseudo file read
    /// to its end; a file that cannot be asked is read, and its read meets the problem.
    /// </summary>
    private static bool IsEmpty(SafeFileHandle handle)
    {
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }

        int fd = (int)handle.DangerousGetHandle();
        try
        {
            return EmptyFiles.IsEmptyLinux(fd, FileStatus.GetLinux(fd, string.Empty).DeviceId);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return false;
        }
    }

    /// <summary>Where a file of <paramref name="length"/> bytes goes: a native block, a pooled array, or pooled segments beyond an array's limit.</summary>
    private static FileContents Rent(ReadSettings settings, long length) =>
        settings.UsesNativeBlock(length) ? NativeBlockPool.Rent(length)
        : length <= Array.MaxLength ? new PooledContents(settings.Pool.Rent((int)length), (int)length, settings.Pool)
        : new SegmentedContents(length, settings.Pool);

    /// <summary>
    /// One read (looped on short reads) of a file smaller than a chunk into <paramref name="contents"/>; while
    /// <paramref name="deviceWait"/> has seen no wait, first from the page cache alone, telling it when that falls short.
    /// </summary>
    private static FileContents ReadWhole(
        FileContents contents, SafeFileHandle handle, string path, long length, DeviceWaitSignal? deviceWait, CancellationToken cancellationToken)
    {
        try
        {
            cancellationToken.ThrowIfCancellationRequested();
            Span<byte> destination = contents.Slice(0, (int)length);
            int cached = 0;
            if (deviceWait is { Seen: false })
            {
                if (WholeFileReader.TryReadCached(handle, destination, out cached))
                {
                    return contents;
                }

                deviceWait.Set();
            }

            // What the page cache gave is kept; the rest is read from where it stopped.
            contents.Truncate(cached + ChunkedReader.ReadFully(handle, path, destination[cached..], cached));
            return contents;
        }
        catch
        {
            contents.Dispose();
            throw;
        }
    }
}
