using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

/// <summary>
/// Reads a large file with several positional reads of <see cref="ReadSettings.ChunkSize"/> in flight (short reads
/// loop). Blocking reads need one thread each, so the workers beyond the calling thread run on threads of their own,
/// which end with the read. Unbuffered (aligned requests), each worker takes the next chunk: there is no readahead to
/// keep. Buffered, each worker reads a contiguous range of the file in order through its own open file description:
/// the kernel keeps one readahead state per open file, and workers taking turns over one file's chunks break it up
/// (docs/measurements/benchmarks.md, "Measurements behind the constants").
/// </summary>
internal static class ChunkedReader
{
    /// <summary>
    /// Reads [0, <paramref name="length"/>) into <paramref name="contents"/> and truncates it to what was read (less if
    /// the file shrank meanwhile); disposes it and rethrows on failure. Each request is rounded up to
    /// <paramref name="requestAlignment"/> (unbuffered reads need aligned sizes; the contents must have room).
    /// </summary>
    public static FileContents ReadInto(
        FileContents contents, SafeFileHandle handle, string path, long length, int requestAlignment, CancellationToken cancellationToken)
    {
        try
        {
            contents.Truncate(Read(handle, path, length, requestAlignment, contents, cancellationToken));
            return contents;
        }
        catch
        {
            contents.Dispose();
            throw;
        }
    }

    /// <returns>The bytes read from the start without a gap.</returns>
    private static long Read(
        SafeFileHandle handle, string path, long length, int requestAlignment, FileContents destination, CancellationToken cancellationToken)
    {
        const int chunkSize = ReadSettings.ChunkSize;
        bool sequentialStreams = requestAlignment <= 1;
        int readsInFlight = sequentialStreams ? ReadSettings.ReadsInFlight : ReadSettings.UnbufferedReadsInFlight;
        long chunkCount = (length + chunkSize - 1) / chunkSize;
        long ranges = sequentialStreams
            ? (length + ReadSettings.BufferedBytesPerRange - 1) / ReadSettings.BufferedBytesPerRange
            : chunkCount;
        int workers = (int)Math.Min(readsInFlight, ranges);
        long chunksPerStream = workers == 0 ? 0 : (chunkCount + workers - 1) / workers;
        long nextChunk = -1;
        long end = length;
        var endLock = new object();
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);

        void Work(int worker)
        {
            try
            {
                if (!sequentialStreams)
                {
                    long chunk;
                    while ((chunk = Interlocked.Increment(ref nextChunk)) < chunkCount)
                    {
                        ReadChunk(handle, chunk);
                    }

                    return;
                }

                long first = worker * chunksPerStream;
                long last = Math.Min(chunkCount, first + chunksPerStream);
                if (first >= last)
                {
                    return; // Fewer chunks than streams times the range: this one has none.
                }

                // The first stream reads through the caller's handle; the others through their own, where possible.
                using SafeFileHandle? own = worker == 0 ? null : ReadableFile.TryReopen(handle);
                for (long chunk = first; chunk < last; chunk++)
                {
                    ReadChunk(own ?? handle, chunk);
                }
            }
            catch
            {
                stop.Cancel(); // One failed read fails the file: the other workers stop too.
                throw;
            }
        }

        void ReadChunk(SafeFileHandle through, long chunk)
        {
            stop.Token.ThrowIfCancellationRequested();
            long offset = chunk * chunkSize;
            int count = (int)Math.Min(chunkSize, length - offset);
            int request = requestAlignment > 1 ? RoundUp(count, requestAlignment) : count;
            if (sequentialStreams && OperatingSystem.IsLinux() && PageCacheRanges.CachingLinux(through, offset, count, length) == RangeCaching.All)
            {
                // A cached chunk is a copy into the block, which its pages' faults, one at a time, would slow by a fifth:
                // they are mapped at once. An uncached one waits for the device, which its faults overlap. (Unbuffered,
                // the kernel maps the pages it pins itself.)
                destination.PrepareToFill(offset, request);
            }

            int read = ReadFully(through, path, destination.Slice(offset, request), offset);
            if (read < count)
            {
                lock (endLock)
                {
                    end = Math.Min(end, offset + read); // The file ends here now.
                }
            }
        }

        // Each helper starts the next before it reads: the calling thread reads at once, and the thread starts (a
        // millisecond or more each in a new process) overlap the reads rather than come before them.
        var helpers = new Task?[Math.Max(0, workers - 1)];
        Exception? startFailure = null;

        void StartHelper(int worker)
        {
            if (worker >= workers)
            {
                return;
            }

            try
            {
                Volatile.Write(
                    ref helpers[worker - 1],
                    Task.Factory.StartNew(
                        () =>
                        {
                            StartHelper(worker + 1);
                            Work(worker);
                        },
                        CancellationToken.None,
                        TaskCreationOptions.LongRunning,
                        TaskScheduler.Default));
            }
            catch (Exception ex)
            {
                // No thread for this range and the ones after it: the file fails rather than miss their bytes.
                Volatile.Write(ref startFailure, ex);
                stop.Cancel();
            }
        }

        Exception? failure = null;
        try
        {
            StartHelper(1);
            Work(0);
        }
        catch (Exception ex)
        {
            failure = ex;
        }

        // Every worker must be done with the destination before the caller may free it. A helper is known once the one
        // before it has ended (that one started it first thing), or was never started, nor were those after it.
        for (int i = 0; i < helpers.Length && Volatile.Read(ref helpers[i]) is { } helper; i++)
        {
            try
            {
                helper.Wait(CancellationToken.None);
            }
            catch (AggregateException ex)
            {
                // The root cause beats the cancellations it caused in the other workers.
                if (failure is null or OperationCanceledException)
                {
                    failure = ex.InnerException;
                }
            }
        }

        if (Volatile.Read(ref startFailure) is { } notStarted && failure is null or OperationCanceledException)
        {
            failure = notStarted;
        }

        if (failure is not null)
        {
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(failure);
        }

        return end;
    }

    internal static int RoundUp(int value, int alignment) => (value + alignment - 1) / alignment * alignment;

    internal static long RoundUp(long value, int alignment) => (value + alignment - 1) / alignment * alignment;

    /// <summary>Fills <paramref name="destination"/> from <paramref name="offset"/>, looping on short reads, until full or the end of the file.</summary>
    internal static int ReadFully(SafeFileHandle handle, string path, Span<byte> destination, long offset)
    {
        int total = 0;
        while (total < destination.Length)
        {
            int read = WholeFileReader.ReadAt(handle, path, destination[total..], offset + total);
            if (read == 0)
            {
                break;
            }

            total += read;
        }

        return total;
    }
}
