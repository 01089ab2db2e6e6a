using System.Buffers;
using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using System.Threading.Tasks.Dataflow;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Engine;

/// <summary>
/// Streams one file in order, in chunks, with a bounded read-ahead: a producer posts chunk numbers to a Dataflow
/// block whose reads run on threads of their own; each chunk takes a read-ahead slot that is given back when the
/// chunk is handed over, so memory stays at about (read-ahead + what the consumer holds) x chunk size whatever the
/// file's size. A file the options want unbuffered (<see cref="ReadSettings.WantsUnbuffered"/>: from 1 GiB with
/// <see cref="FileBuffering.Auto"/>) streams around the page cache into aligned native blocks, so that hashing a
/// 50 GiB file does not push everything else out of the cache.
/// </summary>
internal static class ChunkStream
{
    public static async IAsyncEnumerable<FileChunk> ReadAsync(
        string path, int chunkSize, int readAhead, ReadSettings settings, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        using SafeFileHandle handle = ReadableFile.Open(path, out long length);
        LoadObservers.FileRead(path);

        // Aligned native blocks only with the default buffers: a caller's pool hands out arrays of any alignment.
        int alignment = settings.UsesDefaultBuffers && settings.WantsUnbuffered(length)
            ? UnbufferedReader.TryEnable(handle, path, chunkSize, settings)
            : 0;
        long chunkCount = (length + chunkSize - 1) / chunkSize;
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        using var slots = new SemaphoreSlim(readAhead);
        using var arrived = new SemaphoreSlim(0);
        var done = new ConcurrentDictionary<long, (FileChunk? Chunk, Exception? Error)>();
        using var threads = new DedicatedThreadScheduler(readAhead, "FastLoad chunks");
        var readBlock = new ActionBlock<long>(
            index =>
            {
                done[index] = ReadChunk(handle, path, index, chunkSize, length, alignment, settings.Pool, stop.Token);
                arrived.Release();
            },
            new ExecutionDataflowBlockOptions
            {
                MaxDegreeOfParallelism = readAhead,
                BoundedCapacity = readAhead,
                TaskScheduler = threads,
                SingleProducerConstrained = true,
                CancellationToken = stop.Token,
            });
        Task producer = Task.Run(
            async () =>
            {
                try
                {
                    for (long index = 0; index < chunkCount; index++)
                    {
                        await slots.WaitAsync(stop.Token).ConfigureAwait(false);
                        if (!await readBlock.SendAsync(index, stop.Token).ConfigureAwait(false))
                        {
                            break;
                        }
                    }
                }
                finally
                {
                    readBlock.Complete();
                }
            },
            CancellationToken.None);

        try
        {
            for (long index = 0; index < chunkCount; index++)
            {
                (FileChunk? Chunk, Exception? Error) outcome;
                while (!done.TryRemove(index, out outcome))
                {
                    await arrived.WaitAsync(stop.Token).ConfigureAwait(false);
                }

                slots.Release();
                if (outcome.Error is not null)
                {
                    System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(outcome.Error);
                }

                FileChunk chunk = outcome.Chunk!;
                bool shrank = chunk.Length < Math.Min(chunkSize, length - chunk.Offset);
                yield return chunk;
                if (shrank)
                {
                    yield break; // The file ended early: nothing after this chunk is the file's any more.
                }
            }
        }
        finally
        {
            await stop.CancelAsync().ConfigureAwait(false);
            await IgnoreCancellationAsync(producer).ConfigureAwait(false);
            await IgnoreCancellationAsync(readBlock.Completion).ConfigureAwait(false);
            foreach ((FileChunk? chunk, _) in done.Values)
            {
                chunk?.Dispose();
            }
        }
    }

    /// <summary>
    /// Reads one chunk: buffered into a pooled array, or unbuffered (<paramref name="alignment"/> &gt; 0) with the
    /// request rounded up to the alignment.
    /// </summary>
    private static (FileChunk? Chunk, Exception? Error) ReadChunk(
        SafeFileHandle handle, string path, long index, int chunkSize, long length, int alignment, ArrayPool<byte> pool, CancellationToken cancellationToken)
    {
        long offset = index * chunkSize;
        int count = (int)Math.Min(chunkSize, length - offset);
        int request = alignment > 0 ? ChunkedReader.RoundUp(count, alignment) : count;
        FileContents contents = alignment > 0
            ? NativeContents.AllocateAligned(request, alignment)
            : new PooledContents(pool.Rent(count), count, pool);
        try
        {
            cancellationToken.ThrowIfCancellationRequested();
            contents.Truncate(ChunkedReader.ReadFully(handle, path, contents.Slice(0, request), offset));
            contents.Truncate(count); // An unbuffered read of the tail may return more than the chunk.
            return (new FileChunk(offset, contents), null);
        }
        catch (Exception ex)
        {
            contents.Dispose();
            return (null, ex);
        }
    }

    private static async Task IgnoreCancellationAsync(Task task)
    {
        try
        {
            await task.ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
        }
    }
}
