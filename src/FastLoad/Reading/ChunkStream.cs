using System.Buffers;
using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using System.Threading.Tasks.Dataflow;
using FastLoad.Internal;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Reading;

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

        // Aligned native blocks only with the default buffers: a caller's pool hands out arrays of any alignment.
        int alignment = settings.UsesDefaultBuffers && settings.WantsUnbuffered(length)
            ? UnbufferedReader.TryEnableForChunks(handle, path, chunkSize, settings)
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

    private static (FileChunk? Chunk, Exception? Error) ReadChunk(
        SafeFileHandle handle, string path, long index, int chunkSize, long length, int alignment, ArrayPool<byte> pool, CancellationToken cancellationToken)
    {
        long offset = index * chunkSize;
        int count = (int)Math.Min(chunkSize, length - offset);
        if (alignment > 0)
        {
            return ReadAlignedChunk(handle, path, offset, count, alignment, cancellationToken);
        }

        byte[] buffer = pool.Rent(count);
        try
        {
            cancellationToken.ThrowIfCancellationRequested();
            int read = ChunkedReader.ReadFully(handle, path, buffer.AsSpan(0, count), offset);
            return (new FileChunk(offset, buffer, read, pool), null);
        }
        catch (Exception ex)
        {
            pool.Return(buffer);
            return (null, ex);
        }
    }

    /// <summary>An unbuffered read: the request is rounded up to the alignment (the last chunk's tail), the chunk is not.</summary>
    private static (FileChunk? Chunk, Exception? Error) ReadAlignedChunk(
        SafeFileHandle handle, string path, long offset, int count, int alignment, CancellationToken cancellationToken)
    {
        int request = ChunkedReader.RoundUp(count, alignment);
        NativeContents block = NativeBlockPool.Rent(request, forUnbufferedReads: true);
        try
        {
            cancellationToken.ThrowIfCancellationRequested();
            int read = Math.Min(count, ChunkedReader.ReadFully(handle, path, block.Slice(0, request), offset));
            return (new FileChunk(offset, block, read), null);
        }
        catch (Exception ex)
        {
            block.Dispose();
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
