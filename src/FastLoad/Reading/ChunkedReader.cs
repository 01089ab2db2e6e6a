using Microsoft.Win32.SafeHandles;

namespace FastLoad.Reading;

/// <summary>
/// Reads a file with several positional reads in flight: each of <c>readsInFlight</c> workers takes the next chunk
/// and reads it to its end (short reads loop). Blocking reads need one thread each, so the workers beyond the
/// calling thread run on threads of their own, which end with the read.
/// </summary>
internal static class ChunkedReader
{
    /// <summary>Where chunk <paramref name="offset"/> of <paramref name="length"/> bytes goes; never crosses a segment.</summary>
    public delegate Span<byte> Destination(long offset, int length);

    /// <summary>
    /// Reads [0, <paramref name="length"/>) into <paramref name="destination"/>. Each request is rounded up to
    /// <paramref name="requestAlignment"/> (unbuffered reads need aligned sizes; the destination must have room).
    /// </summary>
    /// <returns>The bytes read from the start without a gap: less than <paramref name="length"/> if the file shrank meanwhile.</returns>
    public static long Read(
        SafeFileHandle handle, string path, long length, int chunkSize, int readsInFlight, int requestAlignment, Destination destination, CancellationToken cancellationToken)
    {
        long chunkCount = (length + chunkSize - 1) / chunkSize;
        long nextChunk = -1;
        long end = length;
        var endLock = new object();
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);

        void Work()
        {
            try
            {
                WorkCore();
            }
            catch
            {
                stop.Cancel(); // One failed read fails the file: the other workers stop too.
                throw;
            }
        }

        void WorkCore()
        {
            while (true)
            {
                long chunk = Interlocked.Increment(ref nextChunk);
                if (chunk >= chunkCount)
                {
                    return;
                }

                stop.Token.ThrowIfCancellationRequested();
                long offset = chunk * chunkSize;
                int count = (int)Math.Min(chunkSize, length - offset);
                int request = requestAlignment > 1 ? RoundUp(count, requestAlignment) : count;
                int read = ReadFully(handle, path, destination(offset, request), offset);
                if (read < count)
                {
                    lock (endLock)
                    {
                        end = Math.Min(end, offset + read); // The file ends here now.
                    }
                }
            }
        }

        int workers = (int)Math.Min(readsInFlight, chunkCount);
        var helpers = new Task[Math.Max(0, workers - 1)];
        for (int i = 0; i < helpers.Length; i++)
        {
            helpers[i] = Task.Factory.StartNew(Work, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        }

        Exception? failure = null;
        try
        {
            Work();
        }
        catch (Exception ex)
        {
            failure = ex;
        }

        // Every worker must be done with the destination before the caller may free it.
        foreach (Task helper in helpers)
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

        if (failure is not null)
        {
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(failure);
        }

        return end;
    }

    internal static int RoundUp(int value, int alignment) => (value + alignment - 1) / alignment * alignment;

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
