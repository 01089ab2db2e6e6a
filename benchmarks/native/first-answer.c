// Time to first answer of a web server: starts COMMAND, asks http://127.0.0.1:PORT/ every millisecond until a 200
// comes back, prints the milliseconds from the start of COMMAND to that answer, then stops the server (SIGTERM, and
// waits for it, so that it ends as it would in production: a host writes its start-up manifest on the way out).
// Usage: first-answer PORT TIMEOUT_SECONDS COMMAND [ARGS...]
// Exit code 1, with the reason on stderr, if the server exits or does not answer in time.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// One GET on a new connection; 1 if the status line says 200.
static int answered(int port) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons(port) };
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(s, (struct sockaddr*)&address, sizeof address) != 0) {
    close(s);
    return 0;
  }
  const char* request = "GET / HTTP/1.0\r\nHost: localhost\r\n\r\n";
  char status[64] = { 0 };
  ssize_t got = write(s, request, strlen(request)) < 0 ? -1 : read(s, status, sizeof status - 1);
  close(s);
  return got > 12 && strncmp(status + 9, "200", 3) == 0;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: first-answer PORT TIMEOUT_SECONDS COMMAND [ARGS...]\n");
    return 2;
  }
  int port = atoi(argv[1]);
  double timeout = atof(argv[2]) * 1e3;
  double start = now_ms();
  pid_t child = fork();
  if (child == 0) {
    execvp(argv[3], argv + 3);
    perror("exec");
    _exit(127);
  }
  struct timespec pause = { 0, 1000000 };
  double elapsed;
  int ok = 0;
  while ((elapsed = now_ms() - start) < timeout) {
    int status;
    if (waitpid(child, &status, WNOHANG) == child) {
      fprintf(stderr, "first-answer: the server exited before answering\n");
      return 1;
    }
    if (answered(port)) {
      elapsed = now_ms() - start;
      ok = 1;
      break;
    }
    nanosleep(&pause, NULL);
  }
  kill(child, SIGTERM);
  waitpid(child, NULL, 0);
  if (!ok) {
    fprintf(stderr, "first-answer: no answer within %.0f ms\n", timeout);
    return 1;
  }
  printf("%.1f\n", elapsed);
  return 0;
}
