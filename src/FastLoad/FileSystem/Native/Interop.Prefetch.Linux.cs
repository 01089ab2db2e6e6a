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
}
