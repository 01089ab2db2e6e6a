using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Engine;

/// <summary>
/// Reads one file with blocking system calls on the calling thread and publishes the outcome: the work of a reader
/// thread and of a pipeline lane for each file, and of the consumer's thread for the files it reads itself. Nothing
/// here throws: every outcome, success or error, is published once.
/// </summary>
internal static class BlockingReads
{
    /// <summary>
    /// Opens the file at <paramref name="index"/>, waits for its bytes to fit the budget, reads and publishes it; with
    /// an <paramref name="order"/>, its first read is sent in the turn of <paramref name="ticket"/>, which is passed on
    /// whatever happens to the file.
    /// </summary>
    /// <returns>The bytes read; 0 when the file failed.</returns>
    public static long ReadAndPublish(LoadContext context, DeliveryChannel.DeliveryWriter delivery, int index, ReadIssueOrder? order = null, long ticket = 0) =>
        ReadAndPublish(context, delivery, index, handle: null, 0, 0, order, ticket);

    /// <summary>
    /// As <see cref="ReadAndPublish(LoadContext, DeliveryChannel.DeliveryWriter, int, ReadIssueOrder?, long)"/>, but waits for the budget without holding the thread: for reads on
    /// the shared thread pool, where a thread blocked on bytes that only the consumer frees would starve the consumer.
    /// </summary>
    /// <returns>The bytes read; 0 when the file failed.</returns>
    public static async Task<long> ReadAndPublishAsync(LoadContext context, DeliveryChannel.DeliveryWriter delivery, int index)
    {
        SafeFileHandle? handle = TryOpen(context, index, context.Files.PathAt(index), out long length, out long charge, out Exception? failure);
        if (handle is null)
        {
            delivery.PublishFailure(index, failure!);
            return 0;
        }

        try
        {
            await context.Budget.AcquireAsync(charge, index, context.StopToken).ConfigureAwait(false);
        }
        catch (Exception ex)
        {
            handle.Dispose();
            delivery.PublishFailure(index, ex);
            return 0;
        }

        return ReadAndPublish(context, delivery, index, handle, length, charge);
    }

    /// <summary>
    /// Checks the file's name, opens it, and says what its bytes will be charged to the budget; a file that cannot be
    /// opened or read gives <see langword="null"/> and its exception (made rather than thrown where it can be:
    /// <see cref="ReadableFile.TryOpen"/>). Throws nothing.
    /// </summary>
    public static SafeFileHandle? TryOpen(LoadContext context, int index, string path, out long length, out long charge, out Exception? failure)
    {
        charge = 0;
        SafeFileHandle? handle;
        try
        {
            context.Files.CheckName(index, path);
            handle = ReadableFile.TryOpen(path, context.Files.FolderOf(index), out length, out failure);
        }
        catch (Exception ex)
        {
            (length, failure) = (0, ex);
            return null;
        }

        if (handle is not null)
        {
            charge = context.ReadSettings.BudgetCharge(length);
        }

        return handle;
    }

    /// <summary>Reads a file opened elsewhere, whose <paramref name="charge"/> is taken, and publishes it.</summary>
    /// <param name="context">The load.</param>
    /// <param name="delivery">Where the file goes.</param>
    /// <param name="index">The file's index in the set.</param>
    /// <param name="handle">The open file; closed here.</param>
    /// <param name="length">Its length when opened.</param>
    /// <param name="charge">What its bytes were charged to the budget.</param>
    /// <returns>The bytes read; 0 when the file failed.</returns>
    public static long ReadOpenedAndPublish(LoadContext context, DeliveryChannel.DeliveryWriter delivery, int index, SafeFileHandle handle, long length, long charge) =>
        ReadAndPublish(context, delivery, index, handle, length, charge);

    /// <summary>
    /// Reads a file opened elsewhere, whose <paramref name="charge"/> is taken, on a reader thread, so that its strategies
    /// (several reads in flight, unbuffered, mapped) do not hold up the calling thread's other files. The load waits
    /// for that thread before it is disposed.
    /// </summary>
    public static void ReadOpenedOnReaderThread(LoadContext context, DeliveryChannel.DeliveryWriter delivery, int index, SafeFileHandle handle, long length, long charge)
    {
        Exception? error = null;
        if (context.Lifetime.ReaderStarted())
        {
            try
            {
                ReaderThreadPool.Shared.Run(static read => ((OpenedRead)read!).Run(), new OpenedRead(context, delivery, index, handle, length, charge));
                return;
            }
            catch (Exception ex)
            {
                // No thread could be started: the file fails, the others go on.
                error = ex;
                context.Lifetime.ReaderExited();
            }
        }

        handle.Dispose();
        context.Budget.Release(charge);
        delivery.PublishFailure(index, error ?? new OperationCanceledException(context.StopToken));
    }

    /// <remarks><paramref name="handle"/>: the file, opened and charged already; <see langword="null"/> to open it here.</remarks>
    private static long ReadAndPublish(
        LoadContext context, DeliveryChannel.DeliveryWriter delivery, int index, SafeFileHandle? handle, long length, long charge, ReadIssueOrder? order = null, long ticket = 0)
    {
        string path = context.Files.PathAt(index);
        context.Hooks.OnBlockingRead?.Invoke(path);
        context.BeginRead();
        bool counted = context.Instruments.ReadStarted();
        long started = context.Time.GetTimestamp();
        FileContents? contents = null;
        Exception? error = null;
        try
        {
            if (handle is null)
            {
                handle = OpenInTurn(context, index, path, order, ticket, out length, out charge, out error);
                if (handle is not null)
                {
                    Acquire(context, index, handle, charge);
                }
            }

            if (handle is not null)
            {
                contents = Read(context, index, path, handle, length, ref charge);
            }
        }
        catch (Exception ex)
        {
            error = ex;
        }
        finally
        {
            context.EndRead();
            context.Instruments.ReadEnded(counted);
        }

        if (contents is null)
        {
            delivery.PublishFailure(index, error!);
            return 0;
        }

        delivery.PublishRead(index, contents, charge, started);
        return contents.Length;
    }

    /// <summary>
    /// Opens the file and, with an <paramref name="order"/>, asks for its first bytes in its turn, before its bytes are
    /// charged: a file waiting for the budget must not hold up the ones after it. The turn is passed on whatever happens.
    /// </summary>
    /// <returns>The open file; <see langword="null"/>, and its <paramref name="failure"/>, where it cannot be opened or read.</returns>
    private static SafeFileHandle? OpenInTurn(
        LoadContext context, int index, string path, ReadIssueOrder? order, long ticket, out long length, out long charge, out Exception? failure)
    {
        try
        {
            SafeFileHandle? handle = TryOpen(context, index, path, out length, out charge, out failure);
            if (handle is not null && order is not null)
            {
                order.Issue(ticket, handle, length);
                context.Hooks.OnReadIssued?.Invoke(path);
            }

            return handle;
        }
        finally
        {
            order?.Pass(ticket);
        }
    }

    /// <summary>Takes the file's bytes from the budget, waiting until they fit; closes the file if the load stops meanwhile.</summary>
    private static void Acquire(LoadContext context, int index, SafeFileHandle handle, long charge)
    {
        try
        {
            context.Budget.Acquire(charge, index, context.StopToken);
        }
        catch
        {
            handle.Dispose();
            throw;
        }
    }

    /// <summary>Reads an open file whose <paramref name="charge"/> is taken; closes it, and releases the charge on failure.</summary>
    /// <remarks>A file of length 0 (a pseudo file has content all the same) is charged as its buffer grows, and may wait for that.</remarks>
    private static FileContents Read(LoadContext context, int index, string path, SafeFileHandle handle, long length, ref long charge)
    {
        ReadSettings settings = context.ReadSettings;
        UnknownLengthCharge? growing = length == 0 ? new UnknownLengthCharge(context, index, path, charge) : null;
        FileContents contents;
        try
        {
            contents = FileReader.Read(handle, path, length, settings, growing is null ? null : growing.Grow, context.DeviceWait, context.StopToken);
        }
        catch
        {
            context.Budget.Release(growing?.Charged ?? charge);
            throw;
        }

        charge = growing?.Charged ?? charge;

        long actual = settings.BudgetCharge(contents.Length);
        if (actual > charge)
        {
            // The file grew after it was opened; the bytes are already read, so they are charged without waiting.
            context.Budget.ForceAcquire(actual - charge);
            charge = actual;
        }

        return contents;
    }

    /// <summary>
    /// The budget's charge of a file whose length is known only once it is read: taken as its buffer grows, waiting
    /// for the bytes like any other file, and never more than the whole budget (the load could not hold it).
    /// </summary>
    private sealed class UnknownLengthCharge(LoadContext context, int index, string path, long charged)
    {
        public long Charged { get; private set; } = charged;

        public void Grow(long bytes)
        {
            if (Charged + bytes > context.Budget.Capacity)
            {
                throw new IOException(
                    $"'{path}' reports no length (a pseudo file) and holds more than the load's memory budget of "
                    + $"{context.Budget.Capacity:N0} bytes; raise FileLoaderOptions.MemoryBudget to load it.");
            }

            context.Budget.Acquire(bytes, index, context.StopToken);
            Charged += bytes;
        }
    }

    /// <summary>An opened file read and published on a reader thread, which then counts itself out.</summary>
    private sealed class OpenedRead(LoadContext context, DeliveryChannel.DeliveryWriter delivery, int index, SafeFileHandle handle, long length, long charge)
    {
        public void Run()
        {
            try
            {
                ReadOpenedAndPublish(context, delivery, index, handle, length, charge);
            }
            finally
            {
                context.Lifetime.ReaderExited();
            }
        }
    }
}
