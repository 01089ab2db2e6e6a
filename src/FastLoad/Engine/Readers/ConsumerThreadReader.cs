namespace FastLoad.Engine;

/// <summary>
/// A reader the consumer's thread drives whenever no file is ready for it: the first io_uring ring, or reads of its
/// own. It must never wait for the budget, which only the consumer frees.
/// </summary>
internal abstract class ConsumerThreadReader
{
    /// <summary>Whether results are waiting to be handled, found without a system call.</summary>
    public virtual bool HasResults => false;

    /// <summary>
    /// Does what can be done now; with <paramref name="wait"/>, the consumer has nothing to take, and the reader may
    /// read a file itself or sleep until its reads in flight complete.
    /// </summary>
    /// <returns>Whether it made progress or has reads in flight: <see langword="false"/> when the consumer must wait for the other readers.</returns>
    public abstract bool Drive(bool wait);

    /// <summary>Stops, waits for what is in flight, and returns what it holds. Called on the consumer's thread.</summary>
    public abstract void Dispose();
}
