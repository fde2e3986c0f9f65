/*
 * nsutil: the two user-namespace operations util-linux 2.38 cannot do (see docs/machines.md), and
 * unmounting many mount points without util-linux's cost per mount point.
 *
 *   nsutil idmap <source> <target> <host-id-base> <count>
 *       Bind-mounts <source> (recursively) read-only on <target> through an idmapped mount: a file
 *       owned by id N on disk is seen as owned by <host-id-base>+N, so inside a machine whose root is
 *       <host-id-base> the host's /usr is owned by the machine's root, while the machine's root is
 *       still nobody to the host. The user namespace that carries the mapping is thrown away after.
 *
 *   nsutil userns-exec <host-id-base> <count> -- <command> [args...]
 *       Enters a new user namespace that maps ids 0..count-1 to <host-id-base>..., becomes its root
 *       and executes <command> (which then creates the machine's other namespaces, owned by it).
 *       The mapping is written by a helper child that stays in the parent user namespace.
 *
 *   nsutil umount [-l] <mount point>...
 *       umount2() on each, lazily (MNT_DETACH) with -l, never following a symbolic link; one that is
 *       not (or no longer) a mount point is fine. umount(8) reads and parses the whole mount table for
 *       every target: with a thousand machines mounted, that is most of the time of their teardown
 *       (docs/machines.md#removing-a-thousand-machines). Goes on after a failure and then exits 1.
 *
 * Exit codes: 0 success, 1 a system call failed (message on stderr), 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int fail(const char *what) {
  fprintf(stderr, "nsutil: %s: %s\n", what, strerror(errno));
  return 1;
}

static int parse_id(const char *s, unsigned long *out) {
  char *end;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (errno || *s == '\0' || *end != '\0' || v > 0xfffffffful) return -1;
  *out = v;
  return 0;
}

/* Writes uid_map and gid_map of process pid: 0 -> base, count ids. */
static int write_maps(pid_t pid, unsigned long base, unsigned long count) {
  char path[64], map[64];
  snprintf(map, sizeof map, "0 %lu %lu\n", base, count);
  const char *files[] = {"uid_map", "gid_map"};
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, files[i]);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return fail(path);
    if (write(fd, map, strlen(map)) != (ssize_t)strlen(map)) {
      int saved = errno;
      close(fd);
      errno = saved;
      return fail(path);
    }
    close(fd);
  }
  return 0;
}

/* A descriptor of a new user namespace with the mapping: a child enters it, the caller maps it. */
static int userns_fd_for_mapping(unsigned long base, unsigned long count) {
  int ready[2], done[2];
  if (pipe2(ready, O_CLOEXEC) || pipe2(done, O_CLOEXEC)) return -fail("pipe");
  pid_t pid = fork();
  if (pid < 0) return -fail("fork");
  if (pid == 0) {
    char c = 0;
    close(ready[0]);
    close(done[1]);
    if (unshare(CLONE_NEWUSER)) _exit(1);
    if (write(ready[1], &c, 1) != 1) _exit(1);
    if (read(done[0], &c, 1) < 0) _exit(1);
    _exit(0);
  }
  close(ready[1]);
  close(done[0]);
  char c;
  int fd = -1;
  if (read(ready[0], &c, 1) == 1 && write_maps(pid, base, count) == 0) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(path);
  }
  close(done[1]);
  waitpid(pid, NULL, 0);
  return fd;
}

static int idmap(const char *source, const char *target, unsigned long base, unsigned long count) {
  int userns = userns_fd_for_mapping(base, count);
  if (userns < 0) return 1;
  int tree = (int)syscall(SYS_open_tree, AT_FDCWD, source, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
  if (tree < 0) return fail("open_tree");
  struct mount_attr attr = {
    .attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV,
    .userns_fd = (unsigned long)userns,
  };
  if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr)) return fail("mount_setattr");
  if (syscall(SYS_move_mount, tree, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH)) return fail("move_mount");
  return 0;
}

static int userns_exec(unsigned long base, unsigned long count, char **argv) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC)) return fail("pipe");
  pid_t self = getpid();
  pid_t pid = fork();
  if (pid < 0) return fail("fork");
  if (pid == 0) {
    char c;
    close(ready[1]);
    if (read(ready[0], &c, 1) != 1) _exit(1);
    _exit(write_maps(self, base, count) == 0 ? 0 : 1);
  }
  close(ready[0]);
  if (unshare(CLONE_NEWUSER)) return fail("unshare(CLONE_NEWUSER)");
  char c = 0;
  if (write(ready[1], &c, 1) != 1) return fail("write");
  close(ready[1]);
  int status;
  if (waitpid(pid, &status, 0) < 0) return fail("waitpid");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "nsutil: writing the id maps failed\n");
    return 1;
  }
  if (setgroups(0, NULL)) return fail("setgroups");
  if (setresgid(0, 0, 0)) return fail("setresgid");
  if (setresuid(0, 0, 0)) return fail("setresuid");
  execvp(argv[0], argv);
  return fail(argv[0]);
}

static int umount_all(int lazy, char **targets, int n) {
  int rc = 0;
  for (int i = 0; i < n; i++) {
    if (umount2(targets[i], UMOUNT_NOFOLLOW | (lazy ? MNT_DETACH : 0)) == 0 || errno == EINVAL || errno == ENOENT) continue;
    rc = fail(targets[i]);
  }
  return rc;
}

int main(int argc, char **argv) {
  unsigned long base, count;
  if (argc == 6 && strcmp(argv[1], "idmap") == 0 && parse_id(argv[4], &base) == 0 && parse_id(argv[5], &count) == 0 && count > 0)
    return idmap(argv[2], argv[3], base, count);
  if (argc >= 6 && strcmp(argv[1], "userns-exec") == 0 && strcmp(argv[4], "--") == 0 && parse_id(argv[2], &base) == 0 &&
      parse_id(argv[3], &count) == 0 && count > 0)
    return userns_exec(base, count, argv + 5);
  if (argc >= 3 && strcmp(argv[1], "umount") == 0) {
    int lazy = strcmp(argv[2], "-l") == 0;
    if (argc > 2 + lazy) return umount_all(lazy, argv + 2 + lazy, argc - 2 - lazy);
  }
  fprintf(stderr,
          "usage: nsutil idmap <source> <target> <host-id-base> <count>\n"
          "       nsutil userns-exec <host-id-base> <count> -- <command> [args...]\n"
          "       nsutil umount [-l] <mount point>...\n");
  return 2;
}
