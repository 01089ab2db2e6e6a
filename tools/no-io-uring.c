// no-io-uring: runs a command with io_uring refused, as Docker's default seccomp profile refuses it (EPERM from
// io_uring_setup), so that FastLoad's reader-thread path runs where the kernel offers io_uring.
// Build: cc -O2 -o no-io-uring tools/no-io-uring.c      Use: no-io-uring <command> [arguments...]
// The filter is inherited by every child and cannot be lifted; no privileges are needed (no_new_privs).
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "no-io-uring knows x86_64 and aarch64"
#endif

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <command> [arguments...]\n", argv[0]);
    return 2;
  }

  struct sock_filter filter[] = {
    // Another architecture's system call numbers mean other calls: let them through untouched.
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 0, 3),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = { .len = sizeof filter / sizeof filter[0], .filter = filter };

  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    perror("no-io-uring: installing the seccomp filter");
    return 1;
  }

  execvp(argv[1], argv + 1);
  perror("no-io-uring: exec");
  return 127;
}
