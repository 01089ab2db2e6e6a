using System.Runtime.InteropServices;
using System.Text;

namespace FastLoad.Shared;

/// <summary>
/// The device's limit for loading many files, as a native program would reach it: threads that each take the next
/// path and call open, fstat, pread (looped) and close straight through libc, into one buffer per thread. Nothing
/// else runs around the reads, so what a loader does beyond them shows as the distance to this.
/// </summary>
internal static unsafe partial class ReferenceReader
{
    /// <summary>The threads the comparison uses: enough to fill an SSD's queue with small reads.</summary>
    public const int DefaultThreads = 64;

    private const int OpenReadOnly = 0;
    private const int StatBufferSize = 256;
    private const int StackSize = 256 * 1024;

    /// <summary>Whether this platform has the libc calls and a known <c>struct stat</c> layout.</summary>
    public static bool IsSupported => OperatingSystem.IsLinux() || OperatingSystem.IsMacOS();

    // st_size: offset 48 in Linux's struct stat on x64 and arm64, 96 in macOS's 64-bit-inode struct stat.
    private static int SizeOffset => OperatingSystem.IsMacOS() ? 96 : 48;

    private static int OpenCloseOnExec => OperatingSystem.IsMacOS() ? 0x1000000 : 0x80000;

    /// <summary>Reads every file on up to <paramref name="threads"/> threads; returns the bytes read.</summary>
    /// <exception cref="IOException">A file could not be read; the message names it.</exception>
    public static long Read(IReadOnlyList<string> paths, int threads)
    {
        if (!IsSupported)
        {
            throw new PlatformNotSupportedException("The reference reader calls libc directly: Linux and macOS only.");
        }

        var run = new Run(paths);
        var workers = new Thread[Math.Max(1, Math.Min(threads, paths.Count))];
        for (int i = 0; i < workers.Length; i++)
        {
            workers[i] = new Thread(run.Work, StackSize) { IsBackground = true };
            workers[i].UnsafeStart();
        }

        foreach (Thread worker in workers)
        {
            worker.Join();
        }

        return run.Failure is { } failure ? throw failure : run.Total;
    }

    private sealed class Run(IReadOnlyList<string> paths)
    {
        private int _next = -1;
        private long _total;

        public long Total => Volatile.Read(ref _total);

        public IOException? Failure { get; private set; }

        public void Work()
        {
            byte[] buffer = new byte[64 * 1024];
            byte[] path = new byte[1024];
            byte* stat = stackalloc byte[StatBufferSize];
            int index;
            while ((index = Interlocked.Increment(ref _next)) < paths.Count && Failure is null)
            {
                string name = paths[index];
                int length = Encoding.UTF8.GetByteCount(name);
                if (length + 1 > path.Length)
                {
                    path = new byte[length + 1];
                }

                Encoding.UTF8.GetBytes(name, path);
                path[length] = 0;
                long read = ReadOne(path, stat, ref buffer);
                if (read < 0)
                {
                    Failure = new IOException($"'{name}': {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}.");
                    return;
                }

                Interlocked.Add(ref _total, read);
            }
        }

        /// <summary>Returns the bytes read, or -1 with the error in the last P/Invoke error.</summary>
        private static long ReadOne(byte[] path, byte* stat, ref byte[] buffer)
        {
            int fd;
            fixed (byte* name = path)
            {
                fd = Open(name, OpenReadOnly | OpenCloseOnExec);
            }

            if (fd < 0)
            {
                return -1;
            }

            try
            {
                if (FStat(fd, stat) != 0)
                {
                    return -1;
                }

                long size = *(long*)(stat + SizeOffset);
                if (size > buffer.Length)
                {
                    buffer = new byte[size];
                }

                long done = 0;
                fixed (byte* data = buffer)
                {
                    while (done < size)
                    {
                        nint count = PRead(fd, data + done, (nint)(size - done), done);
                        if (count < 0)
                        {
                            return -1;
                        }

                        if (count == 0)
                        {
                            break;
                        }

                        done += count;
                    }
                }

                return done;
            }
            finally
            {
                _ = Close(fd);
            }
        }
    }

    [LibraryImport("libc", EntryPoint = "open", SetLastError = true)]
    private static partial int Open(byte* path, int flags);

    [LibraryImport("libc", EntryPoint = "fstat", SetLastError = true)]
    private static partial int FStat(int fd, byte* stat);

    [LibraryImport("libc", EntryPoint = "pread", SetLastError = true)]
    private static partial nint PRead(int fd, byte* buffer, nint count, long offset);

    [LibraryImport("libc", EntryPoint = "close")]
    private static partial int Close(int fd);
}
