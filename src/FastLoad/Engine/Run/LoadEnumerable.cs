using FastLoad.FileSystem;

namespace FastLoad.Engine;

/// <summary>
/// The files of a load as an asynchronous sequence; each enumeration runs the load. Written out rather than as an
/// async iterator, whose builder the runtime would compile for this library's state machine in every new process.
/// </summary>
internal sealed class LoadEnumerable(LoadEngine engine, FileSet files, CancellationToken cancellationToken) : IAsyncEnumerable<LoadedFile>
{
    public IAsyncEnumerator<LoadedFile> GetAsyncEnumerator(CancellationToken cancellationToken1 = default) =>
        new LoadEnumerator(engine.CreateRun(files, cancellationToken, cancellationToken1));

    /// <summary>
    /// The enumerator the caller holds. One dropped without being disposed is finalized: its load is then stopped and
    /// disposed on a reader thread, so that its rings, descriptors, buffers and threads go back as
    /// <see cref="DisposeAsync"/> would have returned them.
    /// </summary>
    private sealed class LoadEnumerator(LoadRun run) : IAsyncEnumerator<LoadedFile>
    {
        ~LoadEnumerator()
        {
            ReaderThreadPool.Shared.Run(static run => _ = ((LoadRun)run!).DisposeAsync().AsTask(), run);
        }

        public LoadedFile Current => run.Current;

        public ValueTask<bool> MoveNextAsync()
        {
            ValueTask<bool> next = run.MoveNextAsync();

            // The finalizer must not dispose the load while the caller's thread is still inside it.
            GC.KeepAlive(this);
            return next;
        }

        public ValueTask DisposeAsync()
        {
            GC.SuppressFinalize(this);
            return run.DisposeAsync();
        }
    }
}
