// Drops files from the page cache, as after a reboot: every regular file under each PATH (files or folders, not
// following links) gets posix_fadvise(DONTNEED). Files written and not yet flushed are flushed first (fsync), or
// their pages could not be dropped. No root needed. Prints how many files it evicted to stderr.
// Usage: evict PATH...
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <unistd.h>

static long evicted;

static int evict(const char* path, const struct stat* status, int type, struct FTW* walk) {
  (void)walk;
  if (type != FTW_F || !S_ISREG(status->st_mode)) return 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return 0;
  fsync(fd);
  if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0) evicted++;
  close(fd);
  return 0;
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++) nftw(argv[i], evict, 64, FTW_PHYS);
  fprintf(stderr, "evicted %ld files\n", evicted);
  return 0;
}
