using System.Runtime.InteropServices;

namespace FastLoad.FileSystem;

/// <summary>The Linux calls the start-up manifest needs beyond the others: priorities, descriptor limits.</summary>
internal static unsafe partial class Interop
{
    /// <summary>
    /// ioprio_get(2), which libc does not wrap; with <see cref="IoPriorityWhoProcess"/> and <paramref name="who"/> 0,
    /// the calling thread's priority. -1 (ENOSYS) on an architecture whose number is not known here.
    /// </summary>
    internal static int IoPriorityGet(int which, int who) => RuntimeInformation.ProcessArchitecture switch
    {
        Architecture.X64 => (int)Syscall(252, which, who, 0, 0, 0, 0),
        Architecture.Arm64 => (int)Syscall(31, which, who, 0, 0, 0, 0),
        _ => -1,
    };

    internal const int ENFILE = 23;
    internal const int EMFILE = 24;

    internal const int ResourceLimitOpenFiles = 7;

    /// <summary><c>struct rlimit</c> on 64-bit Linux.</summary>
    internal struct ResourceLimit
    {
        public ulong Current;
        public ulong Maximum;
    }

    /// <summary>getrlimit(2).</summary>
    [LibraryImport(Libc, EntryPoint = "getrlimit", SetLastError = true)]
    internal static partial int GetResourceLimit(int resource, ResourceLimit* limit);
}
