// The device's limit for loading many files: N threads, each taking the next path and doing
// open / fstat / pread (looped) / close into a buffer of its own, as a native program would.
// Usage: reference-reader <threads> <list-file> [warm]   (one path per line)
// Loads the list twice, evicting it from the page cache in between (the caller evicts it before the first) or, with
// "warm", keeping it cached, and prints "<first seconds> <later seconds> <bytes>": the protocol of
// `fastload bench --native-reader`.
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char** paths;
static long count;
static atomic_long next_index;
static atomic_long total_bytes;
static atomic_long failures;

static void* worker(void* arg) {
  (void)arg;
  size_t capacity = 1 << 20;
  char* buffer = malloc(capacity);
  for (;;) {
    long i = atomic_fetch_add(&next_index, 1);
    if (i >= count) break;
    int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
    if (fd < 0) { atomic_fetch_add(&failures, 1); continue; }
    struct stat st;
    if (fstat(fd, &st) != 0) { close(fd); atomic_fetch_add(&failures, 1); continue; }
    if ((size_t)st.st_size > capacity) { capacity = st.st_size; buffer = realloc(buffer, capacity); }
    off_t done = 0;
    while (done < st.st_size) {
      ssize_t n = pread(fd, buffer + done, st.st_size - done, done);
      if (n <= 0) break;
      done += n;
    }
    close(fd);
    atomic_fetch_add(&total_bytes, done);
  }
  free(buffer);
  return NULL;
}

static double run(int threads) {
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  pthread_t* ids = malloc(threads * sizeof *ids);
  pthread_attr_t attr; pthread_attr_init(&attr); pthread_attr_setstacksize(&attr, 256 * 1024);
  for (int t = 0; t < threads; t++) pthread_create(&ids[t], &attr, worker, NULL);
  for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
  clock_gettime(CLOCK_MONOTONIC, &end);
  free(ids);
  return (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
}

static void evict(void) {
  for (long i = 0; i < count; i++) {
    int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
}

int main(int argc, char** argv) {
  if (argc != 3 && !(argc == 4 && strcmp(argv[3], "warm") == 0)) {
    fprintf(stderr, "usage: %s <threads> <list-file> [warm]\n", argv[0]);
    return 2;
  }
  int warm = argc == 4;
  int threads = atoi(argv[1]);
  FILE* list = fopen(argv[2], "r");
  if (!list || threads < 1) { fprintf(stderr, "cannot read %s\n", argv[2]); return 2; }
  long capacity = 1024;
  paths = malloc(capacity * sizeof *paths);
  char* line = NULL; size_t length = 0; ssize_t read;
  while ((read = getline(&line, &length, list)) > 0) {
    if (line[read - 1] == '\n') line[--read] = 0;
    if (read == 0) continue;
    if (count == capacity) { capacity *= 2; paths = realloc(paths, capacity * sizeof *paths); }
    paths[count++] = strdup(line);
  }
  fclose(list);

  double first = run(threads);
  long bytes = atomic_load(&total_bytes);
  if (!warm) evict();
  atomic_store(&next_index, 0);
  atomic_store(&total_bytes, 0);
  double later = run(threads);
  if (atomic_load(&failures) != 0) {
    fprintf(stderr, "%ld files could not be read\n", atomic_load(&failures));
    return 1;
  }
  printf("%.9f %.9f %ld\n", first, later, bytes);
  return 0;
}
