namespace FastLoad.Engine;

/// <summary>
/// The files of a load as an asynchronous sequence; each enumeration runs the load. Written out rather than as an
/// async iterator, whose builder the runtime would compile for this library's state machine in every new process.
/// </summary>
internal sealed class LoadEnumerable(LoadEngine engine, FileSet files, CancellationToken cancellationToken) : IAsyncEnumerable<LoadedFile>
{
    public IAsyncEnumerator<LoadedFile> GetAsyncEnumerator(CancellationToken cancellationToken1 = default) =>
        engine.CreateRun(files, cancellationToken, cancellationToken1);
}
