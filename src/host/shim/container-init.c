/*
 * container-init: a container's first program. It builds the container's root in fresh mount, UTS and IPC
 * namespaces and executes the command, all in this one process: the shell script it replaces started some
 * fifty processes (mount, mkdir, cp, setpriv, env), most of a container's start.
 *
 *   container-init SPECFILE
 *
 * SPECFILE (written by container-spec.ts) is a sequence of NUL-terminated words: operations, each its name
 * and its arguments, done in order; any failure ends the program with a message on stderr (exit 1):
 *   root DIR SIZE          new mount (private), UTS and IPC namespaces; tmpfs DIR/root and DIR/layers of SIZE;
 *                          in root: the node's top-level links copied, each top-level directory an overlay over
 *                          a tmpfs layer (left empty if the node's directory cannot be a lower layer), /usr a
 *                          read-only bind, empty proc, sys, dev and run
 *   system PRIVILEGED      proc, sys and dev ("1": the node's /sys and /dev; "0": read-only sysfs, a minimal
 *                          /dev with its own devpts and shm), then a tmpfs on /run
 *   hide PATH              an empty tmpfs (mode 700) over PATH when it is a directory
 *   bind SOURCE TARGET FL  bind mount, the target made (a directory or an empty file, as the source); FL holds
 *                          "r" (recursive) and/or "o" (read-only), or is "-"
 *   hostname NAME
 *   pivot                  opens DIR/started, pivot_root into the root
 *   workdir PATH           made if missing, then the working directory
 *   started                writes "started" to DIR/started (the runtime waits for it)
 *   caps KEEP              bounding set reduced to the comma-separated capabilities, no_new_privs
 *   env NAME=VALUE         one variable of the command's (otherwise empty) environment
 *   exec N ARG...          executes the N words (PATH from env); exit 127 when not found, 126 otherwise
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_SPEC (8 * 1024 * 1024)
#define MAX_ENV 4096

extern char **environ;

static char dir[PATH_MAX], root[PATH_MAX], layers[PATH_MAX];
static int started_fd = -1;

static void die(const char *what, const char *arg) {
  fprintf(stderr, "container-init: %s %s: %s\n", what, arg ? arg : "", strerror(errno));
  exit(1);
}

static void fail(const char *what, const char *arg) {
  fprintf(stderr, "container-init: %s %s\n", what, arg ? arg : "");
  exit(1);
}

static void join(char *out, const char *a, const char *b) {
  if ((size_t)snprintf(out, PATH_MAX, "%s%s", a, b) >= PATH_MAX) fail("path too long:", b);
}

static void path3(char *out, const char *a, const char *b, const char *c) {
  if ((size_t)snprintf(out, PATH_MAX, "%s/%s%s", a, b, c) >= PATH_MAX) fail("path too long:", b);
}

static int is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void mkdir_p(const char *path, mode_t mode) {
  char p[PATH_MAX];
  join(p, path, "");
  for (char *s = p + 1;; s++) {
    if (*s == '/' || *s == '\0') {
      char c = *s;
      *s = '\0';
      if (mkdir(p, mode) < 0 && errno != EEXIST) die("mkdir", p);
      *s = c;
      if (c == '\0') break;
    }
  }
}

static void mnt(const char *src, const char *target, const char *type, unsigned long flags, const char *data) {
  if (mount(src, target, type, flags, data) < 0) die("mount", target);
}

/* Read-only remount of a bind, keeping the flags it has (a locked nosuid or nodev cannot be cleared). */
static void remount_ro(const char *target) {
  struct statvfs sv;
  if (statvfs(target, &sv) < 0) die("statvfs", target);
  unsigned long keep = 0;
  if (sv.f_flag & ST_NOSUID) keep |= MS_NOSUID;
  if (sv.f_flag & ST_NODEV) keep |= MS_NODEV;
  if (sv.f_flag & ST_NOEXEC) keep |= MS_NOEXEC;
  if (sv.f_flag & ST_NOATIME) keep |= MS_NOATIME;
  if (sv.f_flag & ST_NODIRATIME) keep |= MS_NODIRATIME;
  if (sv.f_flag & ST_RELATIME) keep |= MS_RELATIME;
  mnt(NULL, target, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | keep, NULL);
}

static void in_root(char *out, const char *path) { join(out, root, path); }

static void op_root(const char *d, const char *size) {
  if (unshare(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC) < 0) die("unshare", "");
  mnt(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
  join(dir, d, "");
  join(root, d, "/root");
  join(layers, d, "/layers");
  mkdir_p(root, 0755);
  mkdir_p(layers, 0755);
  char opts[128];
  if ((size_t)snprintf(opts, sizeof opts, "size=%s,mode=755", size) >= sizeof opts) fail("invalid size", size);
  mnt("tmpfs", root, "tmpfs", 0, opts);
  mnt("tmpfs", layers, "tmpfs", 0, opts);
  struct dirent **names;
  int n = scandir("/", &names, NULL, alphasort);
  if (n < 0) die("scandir", "/");
  for (int i = 0; i < n; i++) {
    const char *name = names[i]->d_name;
    char src[PATH_MAX], dst[PATH_MAX], up[PATH_MAX], work[PATH_MAX], data[3 * PATH_MAX + 64];
    struct stat st;
    if (name[0] == '.' || snprintf(src, sizeof src, "/%s", name) >= (int)sizeof src || lstat(src, &st) < 0) continue;
    path3(dst, root, name, "");
    if (S_ISLNK(st.st_mode)) {
      char link[PATH_MAX];
      ssize_t len = readlink(src, link, sizeof link - 1);
      if (len < 0) die("readlink", src);
      link[len] = '\0';
      if (symlink(link, dst) < 0) die("symlink", dst);
      continue;
    }
    if (!S_ISDIR(st.st_mode)) continue;
    if (mkdir(dst, 0755) < 0 && errno != EEXIST) die("mkdir", dst);
    if (!strcmp(name, "proc") || !strcmp(name, "sys") || !strcmp(name, "dev") || !strcmp(name, "run")) continue;
    if (!strcmp(name, "usr")) {
      mnt("/usr", dst, NULL, MS_BIND | MS_REC, NULL);
      remount_ro(dst);
      continue;
    }
    path3(up, layers, name, "");
    path3(work, layers, name, ".work");
    if (mkdir(up, 0755) < 0 && errno != EEXIST) die("mkdir", up);
    if (mkdir(work, 0755) < 0 && errno != EEXIST) die("mkdir", work);
    if ((size_t)snprintf(data, sizeof data, "lowerdir=%s,upperdir=%s,workdir=%s", src, up, work) >= sizeof data) continue;
    /* A directory holding the node's locked mounts (its read-only binds) cannot be a lower layer: it stays empty. */
    (void)mount("overlay", dst, "overlay", 0, data);
  }
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
}

static const char *DEVICES[] = {"null", "zero", "full", "random", "urandom", "tty"};

static void op_system(const char *privileged) {
  char p[PATH_MAX], q[PATH_MAX];
  if (!strcmp(privileged, "1")) {
    in_root(p, "/proc"), mnt("proc", p, "proc", 0, NULL);
    in_root(p, "/sys"), mnt("/sys", p, NULL, MS_BIND | MS_REC, NULL);
    in_root(p, "/dev"), mnt("/dev", p, NULL, MS_BIND | MS_REC, NULL);
  } else {
    in_root(p, "/proc"), mnt("proc", p, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
    in_root(p, "/sys");
    if (mount("sysfs", p, "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
      mnt("/sys", p, NULL, MS_BIND | MS_REC, NULL);
      remount_ro(p);
    }
    in_root(p, "/dev"), mnt("tmpfs", p, "tmpfs", MS_NOSUID, "mode=755,size=64k");
    for (size_t i = 0; i < sizeof DEVICES / sizeof *DEVICES; i++) {
      snprintf(q, sizeof q, "/dev/%s", DEVICES[i]);
      in_root(p, q);
      int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0) die("create", p);
      close(fd);
      mnt(q, p, NULL, MS_BIND, NULL);
    }
    in_root(p, "/dev/pts"), mkdir_p(p, 0755), mnt("devpts", p, "devpts", 0, "newinstance,ptmxmode=0666,mode=620");
    in_root(p, "/dev/ptmx");
    if (symlink("pts/ptmx", p) < 0) die("symlink", p);
    in_root(p, "/dev/fd");
    if (symlink("/proc/self/fd", p) < 0) die("symlink", p);
    in_root(p, "/dev/shm"), mkdir_p(p, 0755), mnt("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, "size=64m");
  }
  in_root(p, "/run"), mnt("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755");
}

static void op_hide(const char *path) {
  char p[PATH_MAX];
  in_root(p, path);
  if (is_dir(p)) mnt("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, "mode=700,size=64k");
}

static void op_bind(const char *src, const char *target, const char *flags) {
  char t[PATH_MAX], parent[PATH_MAX];
  in_root(t, target);
  struct stat st;
  if (is_dir(src)) {
    if (!is_dir(t)) mkdir_p(t, 0755);
  } else {
    join(parent, t, "");
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) *slash = '\0';
    if (!is_dir(parent)) mkdir_p(parent, 0755);
    if (stat(t, &st) < 0) {
      int fd = open(t, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0) die("create", t);
      close(fd);
    }
  }
  mnt(src, t, NULL, MS_BIND | (strchr(flags, 'r') ? MS_REC : 0), NULL);
  if (strchr(flags, 'o')) remount_ro(t);
}

static void op_pivot(void) {
  char p[PATH_MAX];
  join(p, dir, "/started");
  started_fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (started_fd < 0) die("open", p);
  if (chdir(root) < 0) die("chdir", root);
  if (syscall(SYS_pivot_root, ".", ".") < 0) die("pivot_root", root);
  if (umount2(".", MNT_DETACH) < 0) die("umount", "old root");
  if (chdir("/") < 0) die("chdir", "/");
}

static const char *CAPS[] = {
    "chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill", "setgid", "setuid", "setpcap",
    "linux_immutable", "net_bind_service", "net_broadcast", "net_admin", "net_raw", "ipc_lock", "ipc_owner",
    "sys_module", "sys_rawio", "sys_chroot", "sys_ptrace", "sys_pacct", "sys_admin", "sys_boot", "sys_nice",
    "sys_resource", "sys_time", "sys_tty_config", "mknod", "lease", "audit_write", "audit_control", "setfcap",
    "mac_override", "mac_admin", "syslog", "wake_alarm", "block_suspend", "audit_read", "perfmon", "bpf",
    "checkpoint_restore"};

static int kept(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *s = list; *s;) {
    const char *e = strchr(s, ',');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    if (len == n && !strncmp(s, name, n)) return 1;
    if (!e) break;
    s = e + 1;
  }
  return 0;
}

static void op_caps(const char *keep) {
  for (int cap = 0; cap < 64; cap++) {
    const char *name = cap < (int)(sizeof CAPS / sizeof *CAPS) ? CAPS[cap] : "";
    if (*name && kept(keep, name)) continue;
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
      if (errno == EINVAL) break; /* beyond the kernel's last capability */
      die("drop capability", name);
    }
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) die("no_new_privs", "");
}

int main(int argc, char **argv) {
  if (argc != 2) fail("usage: container-init SPECFILE", "");
  int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
  if (fd < 0) die("open", argv[1]);
  char *spec = malloc(MAX_SPEC + 1);
  size_t len = 0;
  if (!spec) die("malloc", "");
  for (ssize_t r; (r = read(fd, spec + len, MAX_SPEC - len)) != 0; len += (size_t)r) {
    if (r < 0) die("read", argv[1]);
    if (len + (size_t)r >= MAX_SPEC) fail("spec too large:", argv[1]);
  }
  close(fd);
  if (len == 0 || spec[len - 1] != '\0') fail("spec not NUL-terminated:", argv[1]);
  size_t nw = 0;
  for (size_t i = 0; i < len; i++) nw += spec[i] == '\0';
  char **words = calloc(nw, sizeof *words);
  if (!words) die("calloc", "");
  nw = 0;
  for (size_t i = 0; i < len; i += strlen(spec + i) + 1) words[nw++] = spec + i;
  static char *env[MAX_ENV + 1];
  size_t ne = 0;
#define ARG(k) (i + (k) < nw ? words[i + (k)] : (fail("missing argument of", words[i]), ""))
  for (size_t i = 0; i < nw;) {
    const char *op = words[i];
    if (!strcmp(op, "root")) op_root(ARG(1), ARG(2)), i += 3;
    else if (!strcmp(op, "system")) op_system(ARG(1)), i += 2;
    else if (!strcmp(op, "hide")) op_hide(ARG(1)), i += 2;
    else if (!strcmp(op, "bind")) op_bind(ARG(1), ARG(2), ARG(3)), i += 4;
    else if (!strcmp(op, "hostname")) {
      if (sethostname(ARG(1), strlen(ARG(1))) < 0) die("hostname", ARG(1));
      i += 2;
    } else if (!strcmp(op, "pivot")) op_pivot(), i += 1;
    else if (!strcmp(op, "workdir")) {
      mkdir_p(ARG(1), 0755);
      if (chdir(ARG(1)) < 0) die("chdir", ARG(1));
      i += 2;
    } else if (!strcmp(op, "started")) {
      if (started_fd < 0 || write(started_fd, "started\n", 8) != 8) die("write", "started");
      close(started_fd);
      started_fd = -1;
      i += 1;
    } else if (!strcmp(op, "caps")) op_caps(ARG(1)), i += 2;
    else if (!strcmp(op, "env")) {
      if (ne == MAX_ENV) fail("too many environment variables", "");
      env[ne++] = ARG(1);
      i += 2;
    } else if (!strcmp(op, "exec")) {
      long n = strtol(ARG(1), NULL, 10);
      if (n <= 0 || (size_t)n > nw - i - 2) fail("invalid exec word count", ARG(1));
      char **args = calloc((size_t)n + 1, sizeof *args);
      for (long k = 0; k < n; k++) args[k] = words[i + 2 + (size_t)k];
      env[ne] = NULL;
      environ = env;
      execvp(args[0], args);
      int e = errno;
      fprintf(stderr, "container-init: exec %s: %s\n", args[0], strerror(e));
      return e == ENOENT ? 127 : 126;
    } else fail("unknown operation", op);
  }
  fail("spec without exec", "");
}
