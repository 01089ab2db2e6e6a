// Linked into the NativeAOT tool (FastLoad.Cli.csproj). An ELF constructor runs before the .NET runtime starts: it asks
// the kernel to read this executable whole, in large requests that a slow device serves at once, where the runtime's
// start would fault it in one read-ahead window at a time, each waiting for the one before. The kernel reads at most
// one read-ahead window per advice, so the file is advised a piece at a time. A hint: failures are ignored.
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

__attribute__((constructor)) static void fastload_read_ahead_self(void)
{
    const off_t piece = 1024 * 1024;
    struct stat status;
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
    {
        return;
    }

    if (fstat(fd, &status) == 0)
    {
        for (off_t offset = 0; offset < status.st_size; offset += piece)
        {
            (void)posix_fadvise(fd, offset, piece, POSIX_FADV_WILLNEED);
        }
    }

    close(fd);
}
