using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Loading;

/// <summary>
/// How many threads walk a folder of cached subfolders: a walker a core, and no more when listing is slow for reasons
/// other than the device. Alone (a preempted system call, under other tests' load, would count as a device wait).
/// </summary>
[Collection(ProcessWide.Name)]
public class DirectoryWalkerTests : TempDirectoryTestBase
{
    private const int Folders = 64;

    [LinuxFact("the getdents64 walk, Linux only")]
    public void Walk_ManyCachedFolders_SharedByAWalkerACore()
    {
        WriteFolders();
        DirectoryWalk.Enumerate(Root, "*", recursive: true);
        var observer = new DirectoryWalkObserver();

        DirectoryWalk.Enumerate(Root, "*", recursive: true, observer: observer);

        Assert.Equal(Math.Min(Environment.ProcessorCount, Folders), observer.PeakWalkers);
    }

    [LinuxFact("the getdents64 walk, Linux only")]
    public void Walk_CachedFoldersListedSlowly_NoMoreThanAWalkerACore()
    {
        // Only a folder's system calls tell a device wait: time spent around them (here a slow observer; in a process, a
        // collection or a page fault) does not start the 32 walkers a slow device gets. Cannot fail on 32 cores or more.
        // A system call is also slow when another process holds the CPU through it (CI runs other suites beside this
        // one), so the walk gets a few tries; a walk that counted the observer's 2 ms a folder would take 32 walkers in
        // every one.
        List<string> expected = WriteFolders();
        DirectoryWalk.Enumerate(Root, "*", recursive: true);
        int peak = int.MaxValue;
        for (int attempt = 0; attempt < 5 && peak > Environment.ProcessorCount; attempt++)
        {
            var observer = new DirectoryWalkObserver { FolderListed = static _ => Thread.Sleep(2) };

            string[] paths = DirectoryWalk.Enumerate(Root, "*", recursive: true, observer: observer);

            Assert.Equal(expected.Order(StringComparer.Ordinal), paths);
            peak = observer.PeakWalkers;
        }

        Assert.InRange(peak, 1, Environment.ProcessorCount);
    }

    private List<string> WriteFolders()
    {
        var paths = new List<string>();
        for (int folder = 0; folder < Folders; folder++)
        {
            paths.Add(WriteFile($"{folder:D2}/a.bin", 1));
        }

        return paths;
    }
}
