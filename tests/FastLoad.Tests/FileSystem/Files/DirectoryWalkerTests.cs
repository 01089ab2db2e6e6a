using System.Diagnostics;
using System.Text;
using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Loading;

/// <summary>
/// How many threads walk a folder of subfolders: a walker a core while they are cached, and no more when listing is
/// slow for reasons other than the device; more once they wait for it. Alone (a preempted system call, under other
/// tests' load, would count as a device wait).
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
        // Only a folder's system calls tell a device wait: time spent around them (here a slow observer; in a process,
        // a collection or a page fault) does not start the 32 walkers a slow device gets. Cannot fail on 32 cores or
        // more. A system call is also slow when another process holds the CPU through it (CI runs other suites beside
        // this one), so the walk gets a few tries; a walk that counted the observer's 2 ms a folder would take 32
        // walkers in every one.
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

    /// <summary>
    /// The walk through .NET's enumeration (Windows, macOS): more walkers than cores once folders wait for the device,
    /// as a network volume serves many requests at once.
    /// </summary>
    [Fact]
    public void EnumerationWalk_FoldersThatWaitForTheDevice_SharedByMoreWalkersThanCores()
    {
        // A folder that takes 5 ms to open stands for a slow device. Cannot fail on 32 cores or more (the walkers'
        // limit).
        List<string> expected = WriteFolders();
        var observer = new DirectoryWalkObserver
        {
            FolderReading = path =>
            {
                if (path != Root)
                {
                    Thread.Sleep(5);
                }
            },
        };

        string[] paths = DirectoryWalk.EnumerateThroughDotNet(Root, "*", recursive: true, observer: observer);

        Assert.Equal(expected, paths);
        Assert.InRange(observer.PeakWalkers, Math.Min(Environment.ProcessorCount + 1, 32), 32);
    }

    /// <summary>
    /// The walk through .NET's enumeration walks cached folders on the calling thread alone: a slow root does not count
    /// (it also carries the first calls of a process's first walk), and one slow folder (preempted, on a busy machine)
    /// is not enough to start walkers, even beside a slow root. A walk gets a few tries: under other tests' load,
    /// folders slowed by the CPU could count.
    /// </summary>
    [NotUnderWineTheory(
        "Wine's directory calls go through its server, which CI's other sections keep busy for milliseconds at a time: "
        + "not a device, and not what this rule can tell apart from one; Linux runs the same walk")]
    [InlineData(true, false)]
    [InlineData(false, true)]
    [InlineData(true, true)]
    public void EnumerationWalk_CachedFoldersWithASlowRootOrOneSlowFolder_TheCallingThreadAlone(
        bool slowRoot, bool oneSlowFolder)
    {
        List<string> expected = WriteFolders();
        string slowFolder = Path.GetDirectoryName(expected[Folders / 2])!;
        int peak = int.MaxValue;
        for (int attempt = 0; attempt < 5 && peak > 1; attempt++)
        {
            var observer = new DirectoryWalkObserver
            {
                FolderReading = path =>
                {
                    if ((slowRoot && path == Root) || (oneSlowFolder && path == slowFolder))
                    {
                        Thread.Sleep(20);
                    }
                },
            };

            string[] paths = DirectoryWalk.EnumerateThroughDotNet(Root, "*", recursive: true, observer: observer);

            Assert.Equal(expected, paths);
            peak = observer.PeakWalkers;
        }

        Assert.Equal(1, peak);
    }

    /// <summary>
    /// A folder's slow system calls count as a device wait unless the thread spent that time waiting for a CPU.
    /// </summary>
    [Theory]
    [InlineData(0, 3_000_000, 3.2, true)] // 3 ms waiting for a CPU covers the 2.7 ms over the 0.5 ms threshold
    [InlineData(0, 1_000_000, 3.2, false)] // 1 ms does not: the device was waited for
    [InlineData(0, 0, 3.2, false)]
    [InlineData(-1, 3_000_000, 3.2, false)] // The kernel does not say: a slow call is a device wait, as before
    [InlineData(5_000_000, 3_000_000, 3.2, false)]
    public void WaitedForACpu_RunQueueTimeAgainstTheCallsTime(long before, long now, double callMilliseconds, bool expected)
    {
        long callTicks = (long)(callMilliseconds * Stopwatch.Frequency / 1000);

        Assert.Equal(expected, DirectoryWalk.WaitedForACpu(before, now, callTicks));
    }

    [Theory]
    [InlineData("617791 56934 1\n", 56934)]
    [InlineData("1 2", 2)]
    [InlineData("617791", -1)]
    [InlineData("1 x 2", -1)]
    [InlineData("", -1)]
    public void SecondNumber_OfSchedStat(string text, long expected)
    {
        Assert.Equal(expected, ThreadSchedule.SecondNumber(Encoding.ASCII.GetBytes(text)));
    }

    [LinuxFact("/proc/thread-self/schedstat")]
    public void RunQueueWaitNanoseconds_OnLinux_Known()
    {
        Assert.InRange(ThreadSchedule.RunQueueWaitNanoseconds(), 0, long.MaxValue);
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
