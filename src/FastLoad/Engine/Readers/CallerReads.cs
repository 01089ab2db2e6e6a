using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Engine;

/// <summary>
/// The consumer's thread reading the next file itself when none is ready and no ring reads: a set of a few files
/// (threads and the device's description would cost more than the reads), or while the reader threads start. A file
/// whose bytes do not fit the budget stays open until a later call, after the consumer took what was read.
/// </summary>
internal sealed class CallerReads(LoadContext context, DeliveryChannel.DeliveryWriter delivery, LoadReaders readers) : ConsumerThreadReader
{
    private SafeFileHandle? _handle;
    private int _index;
    private long _length;
    private long _charge;

    public override bool Drive(bool wait)
    {
        if (_handle is not null)
        {
            return TryFinish();
        }

        // Only when the consumer has nothing to take; a pinned parallelism is a promise about reads at once, which
        // this thread's read would break.
        if (!wait || context.Options.MaxDegreeOfParallelism is not null || readers.Retired || !delivery.TryClaim(wait: false, out int index))
        {
            return false;
        }

        string path = context.Files.PathAt(index);
        _handle = BlockingReads.TryOpen(context, index, path, out _length, out _charge, out Exception? failure);
        _index = index;
        if (_handle is null)
        {
            delivery.PublishFailure(index, failure!);
            return true;
        }

        return TryFinish();
    }

    public override void Dispose()
    {
        _handle?.Dispose();
        _handle = null;
    }

    private bool TryFinish()
    {
        if (!context.Budget.TryAcquire(_charge, _index))
        {
            return false;
        }

        SafeFileHandle handle = _handle!;
        _handle = null;
        if (_length == 0)
        {
            // A pseudo file is charged as it is read and may wait for the budget, which only this thread frees.
            BlockingReads.ReadOpenedOnReaderThread(context, delivery, _index, handle, _length, _charge);
            return true;
        }

        readers.FileRead(BlockingReads.ReadOpenedAndPublish(context, delivery, _index, handle, _length, _charge));
        return true;
    }
}
