/*
 * shim: the parent of one container (or one exec with a terminal), like containerd's shim or conmon. It
 * outlives the node agent that started it, so a restarted agent finds running containers with their logs,
 * their terminal and, once they exit, their exit status.
 *
 *   shim -s SOCKET -x EXITFILE [-l LOGFILE] [-m LOGMAX] [-t] [-i] [-o] [-w] [-n NETNS] [-N | -J PIDNS] -- command [args...]
 *
 *   -s  unix socket for attach clients (at most 16 at once)
 *   -x  written atomically when the command ended: {"exitCode":N,"signal":S,"finishedAt":"..."}
 *   -l  log file in the kubelet's CRI format ("<RFC 3339 time> stdout|stderr F|P <text>"), rotated to
 *       LOGFILE.1 beyond -m bytes (default 10 MiB)
 *   -t  run the command as session leader on a new pseudo-terminal (output is "stdout")
 *   -i  keep standard input open for attach clients (otherwise /dev/null)
 *   -o  close standard input after the first client that wrote to it detaches (stdinOnce)
 *   -w  start the command only once the first client is connected (an exec: its first output, such as a
 *       shell's prompt, has no log to wait in and must reach that client); give up after 30 s
 *   -n  join the network namespace at NETNS (e.g. /run/netns/NAME) first (rather than through nsenter)
 *   -N  the command is PID 1 of a new PID namespace; -J joins the PID namespace at PIDNS
 *
 * Frames on the socket, both ways: 1 byte type, 4 bytes big-endian length, payload (at most 64 KiB).
 * Client to shim: 0 stdin, 4 resize (u16 columns, u16 rows, big-endian), 5 hang up the terminal's
 * foreground process group, 255 close stdin. Shim to client: 1 stdout, 2 stderr, 3 exit (the exit code as
 * text), after which the shim closes every client and exits.
 * The command's pid is written to EXITFILE.pid once it runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MAX_CLIENTS 16
#define MAX_FRAME 65536
#define LINE_MAX_BYTES 16384

struct client {
  int fd;
  unsigned char hdr[5];
  size_t hdr_len;
  unsigned char *buf;
  size_t want, got;
  int wrote_stdin;
};

static struct client clients[MAX_CLIENTS];
static const char *log_path, *exit_path;
static int log_fd = -1;
static long long log_max = 10 * 1024 * 1024, log_size;
static int stdin_fd = -1, stdin_once, tty, master = -1;
static char line[2][LINE_MAX_BYTES];
static size_t line_len[2];

static void die(const char *what) {
  fprintf(stderr, "shim: %s: %s\n", what, strerror(errno));
  exit(1);
}

static void write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n > 0) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {
      struct pollfd p = {.fd = fd, .events = POLLOUT};
      if (poll(&p, 1, 100) > 0) continue;
    }
    if (w <= 0) return;
    c += w;
    n -= (size_t)w;
  }
}

static void timestamp(char *out, size_t size) {
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  size_t n = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(out + n, size - n, ".%09ldZ", ts.tv_nsec);
}

static void log_open(void) {
  log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
  if (log_fd < 0) die(log_path);
  struct stat st;
  log_size = fstat(log_fd, &st) == 0 ? st.st_size : 0;
}

static void log_line(int stream, const char *text, size_t n, char tag) {
  if (!log_path) return;
  char ts[64], head[96];
  timestamp(ts, sizeof ts);
  int h = snprintf(head, sizeof head, "%s %s %c ", ts, stream == 1 ? "stdout" : "stderr", tag);
  if (log_size + h + (long long)n + 1 > log_max) {
    char old[4096];
    snprintf(old, sizeof old, "%s.1", log_path);
    close(log_fd);
    rename(log_path, old);
    log_open();
  }
  struct iovec v[3] = {{head, (size_t)h}, {(void *)text, n}, {"\n", 1}};
  if (writev(log_fd, v, 3) > 0) log_size += h + (long long)n + 1;
}

/* Splits output into lines for the log: complete lines are "F", pieces of longer lines "P". */
static void log_output(int stream, const char *p, size_t n) {
  int s = stream - 1;
  for (size_t i = 0; i < n; i++) {
    if (p[i] == '\n') {
      size_t len = line_len[s];
      if (len > 0 && line[s][len - 1] == '\r') len--;
      log_line(stream, line[s], len, 'F');
      line_len[s] = 0;
      continue;
    }
    if (line_len[s] == LINE_MAX_BYTES) {
      log_line(stream, line[s], line_len[s], 'P');
      line_len[s] = 0;
    }
    line[s][line_len[s]++] = p[i];
  }
}

static void drop_client(int i) {
  if (clients[i].wrote_stdin && stdin_once && stdin_fd >= 0 && !tty) {
    close(stdin_fd);
    stdin_fd = -1;
  }
  close(clients[i].fd);
  free(clients[i].buf);
  memset(&clients[i], 0, sizeof clients[i]);
  clients[i].fd = -1;
}

static void send_frame(int i, int type, const void *p, size_t n) {
  unsigned char hdr[5] = {(unsigned char)type, (unsigned char)(n >> 24), (unsigned char)(n >> 16), (unsigned char)(n >> 8), (unsigned char)n};
  struct iovec v[2] = {{hdr, 5}, {(void *)p, n}};
  /* Clients read promptly; one that does not is dropped rather than stalling the container. */
  ssize_t w = writev(clients[i].fd, v, 2);
  if (w != (ssize_t)(n + 5)) drop_client(i);
}

static void broadcast(int type, const void *p, size_t n) {
  for (int i = 0; i < MAX_CLIENTS; i++)
    if (clients[i].fd >= 0) send_frame(i, type, p, n);
}

static void handle_frame(int i, int type, unsigned char *p, size_t n) {
  if (type == 0 && stdin_fd >= 0) {
    clients[i].wrote_stdin = 1;
    write_all(stdin_fd, p, n);
  } else if (type == 4 && n == 4 && master >= 0) {
    struct winsize ws = {.ws_col = (unsigned short)(p[0] << 8 | p[1]), .ws_row = (unsigned short)(p[2] << 8 | p[3])};
    ioctl(master, TIOCSWINSZ, &ws);
  } else if (type == 5 && master >= 0) {
    pid_t fg = tcgetpgrp(master);
    if (fg > 0) kill(-fg, SIGHUP);
  } else if (type == 255 && stdin_fd >= 0 && !tty) {
    close(stdin_fd);
    stdin_fd = -1;
  }
}

static void read_client(int i) {
  struct client *c = &clients[i];
  if (c->hdr_len < 5) {
    ssize_t r = read(c->fd, c->hdr + c->hdr_len, 5 - c->hdr_len);
    if (r < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (r <= 0) return drop_client(i);
    c->hdr_len += (size_t)r;
    if (c->hdr_len < 5) return;
    c->want = (size_t)c->hdr[1] << 24 | (size_t)c->hdr[2] << 16 | (size_t)c->hdr[3] << 8 | c->hdr[4];
    if (c->want > MAX_FRAME) return drop_client(i);
    c->buf = malloc(c->want + 1);
    c->got = 0;
    if (!c->buf) return drop_client(i);
  }
  if (c->got < c->want) {
    ssize_t r = read(c->fd, c->buf + c->got, c->want - c->got);
    if (r < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (r <= 0) return drop_client(i);
    c->got += (size_t)r;
  }
  if (c->got == c->want) {
    handle_frame(i, c->hdr[0], c->buf, c->want);
    free(c->buf);
    c->buf = NULL;
    c->hdr_len = 0;
  }
}

static void write_file_atomic(const char *path, const char *text) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  write_all(fd, text, strlen(text));
  fsync(fd);
  close(fd);
  rename(tmp, path);
}

static int usage(void) {
  fprintf(stderr, "usage: shim -s SOCKET -x EXITFILE [-l LOG] [-m MAX] [-t [-W COLSxROWS]] [-i] [-o] [-w] [-n NETNS] [-N | -J PIDNS] -- command...\n");
  return 2;
}

int main(int argc, char **argv) {
  const char *sock_path = NULL, *join_pidns = NULL, *join_netns = NULL;
  int new_pidns = 0, keep_stdin = 0, wait_client = 0, opt;
  unsigned cols = 0, rows = 0;
  while ((opt = getopt(argc, argv, "+s:x:l:m:tiowNJ:W:n:")) != -1) {
    switch (opt) {
      case 's': sock_path = optarg; break;
      case 'x': exit_path = optarg; break;
      case 'l': log_path = optarg; break;
      case 'm': log_max = atoll(optarg); break;
      case 't': tty = 1; break;
      case 'i': keep_stdin = 1; break;
      case 'o': stdin_once = 1; break;
      case 'w': wait_client = 1; break;
      case 'N': new_pidns = 1; break;
      case 'J': join_pidns = optarg; break;
      case 'n': join_netns = optarg; break;
      case 'W':
        if (sscanf(optarg, "%ux%u", &cols, &rows) != 2 || cols > 65535 || rows > 65535) return usage();
        break;
      default: return usage();
    }
  }
  if (!sock_path || !exit_path || optind >= argc || log_max < 4096) return usage();
  if (join_netns) {
    int fd = open(join_netns, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) die(join_netns);
    close(fd);
  }
  signal(SIGPIPE, SIG_IGN);
  for (int i = 0; i < MAX_CLIENTS; i++) clients[i].fd = -1;
  if (log_path) log_open();

  /* Bound and listening under a temporary name, then renamed: whoever sees the socket can connect. */
  int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (lfd < 0 || strlen(sock_path) + 1 >= sizeof addr.sun_path) die("socket");
  snprintf(addr.sun_path, sizeof addr.sun_path, "%s~", sock_path);
  unlink(addr.sun_path);
  if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(lfd, 16) < 0) die(sock_path);
  if (chmod(addr.sun_path, 0600) < 0 || rename(addr.sun_path, sock_path) < 0) die(sock_path);

  if (wait_client) {
    struct pollfd w = {.fd = lfd, .events = POLLIN};
    int r;
    while ((r = poll(&w, 1, 30000)) < 0 && errno == EINTR) {
    }
    int fd = r > 0 ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK) : -1;
    if (fd < 0) {
      unlink(sock_path);
      fprintf(stderr, "shim: no client connected within 30 s\n");
      return 1;
    }
    clients[0].fd = fd;
  }

  int out[2] = {-1, -1}, err[2] = {-1, -1}, in[2] = {-1, -1};
  char slave[128] = "";
  if (tty) {
    master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0 || ptsname_r(master, slave, sizeof slave) != 0) die("pty");
    if (cols && rows) {
      /* The terminal's size before the command starts, so its first `stty size` is right. */
      struct winsize ws = {.ws_col = (unsigned short)cols, .ws_row = (unsigned short)rows};
      ioctl(master, TIOCSWINSZ, &ws);
    }
  } else {
    if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) die("pipe");
    if (keep_stdin && pipe2(in, O_CLOEXEC) < 0) die("pipe");
  }
  if (join_pidns) {
    int fd = open(join_pidns, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || setns(fd, CLONE_NEWPID) < 0) die(join_pidns);
    close(fd);
  } else if (new_pidns && unshare(CLONE_NEWPID) < 0) {
    die("unshare pid");
  }

  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  sigaddset(&mask, SIGTERM);
  sigprocmask(SIG_BLOCK, &mask, NULL);
  int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
  if (sfd < 0) die("signalfd");

  pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) {
    sigprocmask(SIG_UNBLOCK, &mask, NULL);
    signal(SIGPIPE, SIG_DFL);
    setsid();
    if (tty) {
      int s = open(slave, O_RDWR);
      if (s < 0 || ioctl(s, TIOCSCTTY, 0) < 0) die(slave);
      dup2(s, 0), dup2(s, 1), dup2(s, 2);
      if (s > 2) close(s);
    } else {
      int null = open("/dev/null", O_RDONLY);
      dup2(keep_stdin ? in[0] : null, 0);
      dup2(out[1], 1);
      dup2(err[1], 2);
      if (null > 2) close(null);
    }
    execvp(argv[optind], argv + optind);
    fprintf(stderr, "shim: exec %s: %s\n", argv[optind], strerror(errno));
    _exit(127);
  }
  if (tty) {
    stdin_fd = keep_stdin ? master : -1;
  } else {
    close(out[1]), close(err[1]);
    if (keep_stdin) close(in[0]), stdin_fd = in[1];
  }
  /* Input the command does not read is dropped rather than stalling the shim. */
  if (stdin_fd >= 0) fcntl(stdin_fd, F_SETFL, fcntl(stdin_fd, F_GETFL) | O_NONBLOCK);
  char pidtext[32], pidpath[4200];
  snprintf(pidtext, sizeof pidtext, "%d\n", (int)child);
  snprintf(pidpath, sizeof pidpath, "%s.pid", exit_path);
  write_file_atomic(pidpath, pidtext);

  int status = 0, exited = 0;
  int outs[2] = {tty ? master : out[0], tty ? -1 : err[0]};
  struct timespec drain_deadline = {0};
  char buf[65536];
  for (;;) {
    struct pollfd p[4 + MAX_CLIENTS];
    int n = 0;
    p[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
    p[n++] = (struct pollfd){.fd = exited ? -1 : lfd, .events = POLLIN};
    for (int s = 0; s < 2; s++) p[n++] = (struct pollfd){.fd = outs[s], .events = POLLIN};
    for (int i = 0; i < MAX_CLIENTS; i++) p[n++] = (struct pollfd){.fd = clients[i].fd, .events = POLLIN};
    if (exited && outs[0] < 0 && outs[1] < 0) break;
    int timeout = -1;
    if (exited) {
      /* Orphans of a command in the node's PID namespace may hold the output open: stop after 500 ms. */
      struct timespec now;
      clock_gettime(CLOCK_MONOTONIC, &now);
      long ms = (drain_deadline.tv_sec - now.tv_sec) * 1000 + (drain_deadline.tv_nsec - now.tv_nsec) / 1000000;
      if (ms <= 0) break;
      timeout = (int)ms;
    }
    if (poll(p, (nfds_t)n, timeout) < 0) {
      if (errno == EINTR) continue;
      die("poll");
    }
    if (p[0].revents & POLLIN) {
      struct signalfd_siginfo si;
      if (read(sfd, &si, sizeof si) == sizeof si && si.ssi_signo == SIGTERM) kill(child, SIGKILL);
      if (!exited && waitpid(child, &status, WNOHANG) == child) {
        exited = 1;
        clock_gettime(CLOCK_MONOTONIC, &drain_deadline);
        drain_deadline.tv_nsec += 500000000;
        if (drain_deadline.tv_nsec >= 1000000000) drain_deadline.tv_sec++, drain_deadline.tv_nsec -= 1000000000;
      }
      while (waitpid(-1, NULL, WNOHANG) > 0) {
      }
    }
    if (p[1].revents & POLLIN) {
      int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
      int slot = -1;
      for (int i = 0; i < MAX_CLIENTS && fd >= 0; i++)
        if (clients[i].fd < 0) {
          slot = i;
          break;
        }
      if (slot < 0 && fd >= 0) close(fd);
      if (slot >= 0) clients[slot].fd = fd;
    }
    for (int s = 0; s < 2; s++) {
      if (!(p[2 + s].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t r = read(outs[s], buf, sizeof buf);
      if (r <= 0) {
        if (r < 0 && errno == EINTR) continue;
        /* EOF, or EIO on a terminal whose last holder closed it */
        if (!tty || exited) {
          close(outs[s]);
          outs[s] = -1;
        }
        if (tty && !exited) {
          struct timespec ts = {0, 10000000};
          nanosleep(&ts, NULL);
        }
        continue;
      }
      log_output(s + 1, buf, (size_t)r);
      broadcast(s + 1, buf, (size_t)r);
    }
    for (int i = 0; i < MAX_CLIENTS; i++)
      if (clients[i].fd >= 0 && (p[4 + i].revents & (POLLIN | POLLHUP | POLLERR))) read_client(i);
  }
  for (int s = 0; s < 2; s++)
    if (line_len[s] > 0) log_line(s + 1, line[s], line_len[s], 'F');

  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  char ts[64], text[160];
  timestamp(ts, sizeof ts);
  snprintf(text, sizeof text, "{\"exitCode\":%d,\"signal\":%d,\"finishedAt\":\"%s\"}\n", code, sig, ts);
  write_file_atomic(exit_path, text);
  char codetext[16];
  snprintf(codetext, sizeof codetext, "%d", code);
  broadcast(3, codetext, strlen(codetext));
  unlink(sock_path);
  return 0;
}
