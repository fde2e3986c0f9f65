// The setup script of a container: run by /bin/sh as the first program of the container's process (PID 1 of
// its PID namespace unless it shares one), in fresh mount, UTS and IPC namespaces. It builds the root file
// system in that mount namespace only, so nothing of it stays behind when the last process exits: a tmpfs
// root, an overlay of each top-level directory of the node's root over a tmpfs (writes are discarded with
// the container) with the node's private directories covered empty, the node's /usr read-only, its own
// proc, sys, dev and run, the pod's files and volumes;
// then pivot_root, the hostname, the working directory, capabilities, and exec of the command.
// Every value is passed quoted: nothing here is parsed by a shell.
import { posix } from "node:path";

/** Docker's default capability set, given to containers that are not privileged. */
export const DEFAULT_CAPABILITIES = [
  "chown", "dac_override", "fsetid", "fowner", "mknod", "net_raw", "setgid", "setuid",
  "setfcap", "setpcap", "net_bind_service", "sys_chroot", "kill", "audit_write",
] as const;

export interface ContainerMount {
  /** A path of the node (the machine). */
  source: string;
  /** Absolute path inside the container. */
  target: string;
  readOnly?: boolean;
  /** Bind with submounts (hostPath). */
  recursive?: boolean;
}

export interface ContainerScriptSpec {
  /** The container's directory (the started marker is written here). */
  dir: string;
  hostname: string;
  privileged: boolean;
  mounts: readonly ContainerMount[];
  command: readonly string[];
  env: readonly (readonly [string, string])[];
  workingDir?: string;
  /** Size of each tmpfs holding the writable layers (default "1g"). */
  rootSize?: string;
  /** Directories of the node the container must not see (its agent's credentials and state): each is covered by an empty tmpfs. */
  hide?: readonly string[];
}

export const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

const DEVICES = ["null", "zero", "full", "random", "urandom", "tty"];

export function renderContainerScript(spec: ContainerScriptSpec): string {
  const size = spec.rootSize ?? "1g";
  if (!/^[0-9]+[kmg]?$/.test(size)) throw new Error(`invalid root size ${size}`);
  const lines = [
    "set -eu",
    `D=${shq(spec.dir)}`,
    'R="$D/root"',
    'L="$D/layers"',
    'mkdir -p "$R" "$L"',
    `mount -t tmpfs -o size=${size},mode=755 tmpfs "$R"`,
    `mount -t tmpfs -o size=${size},mode=755 tmpfs "$L"`,
    // Top-level links are copied, directories overlaid; mount points of the node's own are handled below.
    // Every process started here is a fork and an exec, the bulk of a container's start: the links are
    // copied and the directories made with one cp and one mkdir.
    'set --',
    'for e in /*; do [ -L "$e" ] && set -- "$@" "$e"; done',
    '[ $# -eq 0 ] || cp -P "$@" "$R/"',
    'set --',
    'for e in /*; do',
    '  n=${e#/}',
    '  { [ -L "$e" ] || ! [ -d "$e" ]; } && continue',
    '  set -- "$@" "$R/$n"',
    '  case "$n" in proc|sys|dev|run|usr) continue;; esac',
    '  set -- "$@" "$L/$n" "$L/$n.work"',
    'done',
    'mkdir "$@"',
    'for e in /*; do',
    '  n=${e#/}',
    '  { [ -L "$e" ] || ! [ -d "$e" ]; } && continue',
    '  case "$n" in proc|sys|dev|run) continue;; usr) mount --rbind /usr "$R/usr"; mount -o remount,bind,ro "$R/usr"; continue;; esac',
    // A directory holding the node's locked mounts (its read-only binds) cannot be a lower layer: it stays empty.
    '  mount -t overlay overlay -o "lowerdir=$e,upperdir=$L/$n,workdir=$L/$n.work" "$R/$n" 2>/dev/null || true',
    'done',
  ];
  if (spec.privileged) {
    lines.push('mount -t proc proc "$R/proc"', 'mount --rbind /sys "$R/sys"', 'mount --rbind /dev "$R/dev"');
  } else {
    lines.push(
      'mount -t proc -o nosuid,nodev,noexec proc "$R/proc"',
      'mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$R/sys" 2>/dev/null || { mount --rbind /sys "$R/sys"; mount -o remount,bind,ro "$R/sys"; }',
      'mount -t tmpfs -o nosuid,mode=755,size=64k tmpfs "$R/dev"',
      `for d in ${DEVICES.join(" ")}; do : > "$R/dev/$d"; mount --bind "/dev/$d" "$R/dev/$d"; done`,
      'mkdir "$R/dev/pts" "$R/dev/shm"',
      'mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$R/dev/pts"',
      'ln -s pts/ptmx "$R/dev/ptmx"',
      'ln -s /proc/self/fd "$R/dev/fd"',
      'mount -t tmpfs -o nosuid,nodev,size=64m tmpfs "$R/dev/shm"',
    );
  }
  lines.push('mount -t tmpfs -o nosuid,nodev,mode=755 tmpfs "$R/run"');
  for (const h of spec.hide ?? []) {
    if (!h.startsWith("/") || h.split("/").includes("..")) throw new Error(`hidden path ${h} must be absolute`);
    lines.push(`if [ -d "$R"${shq(h)} ]; then mount -t tmpfs -o nosuid,nodev,mode=700,size=64k tmpfs "$R"${shq(h)}; fi`);
  }
  for (const m of spec.mounts) {
    if (!m.target.startsWith("/") || m.target.split("/").includes("..")) throw new Error(`mount target ${m.target} must be absolute`);
    const t = `"$R"${shq(m.target)}`;
    const parent = `"$R"${shq(posix.dirname(m.target))}`;
    lines.push(`if [ -d ${shq(m.source)} ]; then [ -d ${t} ] || mkdir -p ${t}; else [ -d ${parent} ] || mkdir -p ${parent}; [ -e ${t} ] || : > ${t}; fi`);
    lines.push(`mount ${m.recursive ? "--rbind" : "--bind"} ${shq(m.source)} ${t}`);
    if (m.readOnly) lines.push(`mount -o remount,bind,ro ${t}`);
  }
  lines.push(
    `hostname ${shq(spec.hostname)}`,
    'exec 9>"$D/started"',
    'cd "$R"',
    "pivot_root . .",
    "umount -l .",
    "cd /",
  );
  if (spec.workingDir) lines.push(`mkdir -p ${shq(spec.workingDir)}`, `cd ${shq(spec.workingDir)}`);
  lines.push("echo started >&9", "exec 9>&-");
  const env = spec.env.map(([k, v]) => {
    if (k === "" || k.includes("=") || k.includes("\0")) throw new Error(`invalid environment variable name ${JSON.stringify(k)}`);
    return shq(`${k}=${v}`);
  });
  const caps = spec.privileged
    ? []
    : ["setpriv", `--bounding-set=-all,${DEFAULT_CAPABILITIES.map((c) => `+${c}`).join(",")}`, "--no-new-privs", "--"];
  if (spec.command.length === 0) throw new Error("a container needs a command");
  lines.push(`exec ${[...caps, "env", "-i", ...env, ...spec.command.map(shq)].map((w) => (w.startsWith("'") ? w : shq(w))).join(" ")}`);
  return `${lines.join("\n")}\n`;
}

/** The setpriv and env prefix an exec in a container runs through (same capabilities and environment). */
export function execPrefix(privileged: boolean, env: readonly (readonly [string, string])[]): string[] {
  const caps = privileged ? [] : ["setpriv", `--bounding-set=-all,${DEFAULT_CAPABILITIES.map((c) => `+${c}`).join(",")}`, "--no-new-privs", "--"];
  return [...caps, "env", "-i", ...env.map(([k, v]) => `${k}=${v}`)];
}
