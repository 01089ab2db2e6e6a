using FastLoad.FileSystem;

namespace FastLoad.Tests.Infrastructure;

/// <summary>
/// Runs a call as in a new process whose thread pool has no thread, where a load waits on the calling thread
/// (<see cref="CallerWaits"/>): a test host's pool has always started, so the choice is forced on the test's thread.
/// </summary>
internal static class CallerWaitsForced
{
    public static T Run<T>(Func<T> call)
    {
        bool before = CallerWaits.ForcedOnThisThread;
        CallerWaits.ForcedOnThisThread = true;
        try
        {
            return call();
        }
        finally
        {
            CallerWaits.ForcedOnThisThread = before;
        }
    }
}
