// The files a machine boots from (pure text): stage1 (completes the root and pivots into it), init (PID 1:
// runs the user-data like cloud-init, makes sure sshd runs, reaps orphans), a systemctl stand-in for the
// machine's one service, and the sshd configuration. Inside the machine they are at /run/ga, the
// host-side control directory <machineDir>/ctl bind-mounted there; status files written to it are how the
// host observes the boot.
import { HostSpecError } from "./names.ts";

/** The control directory as the machine sees it. */
export const CTL = "/run/ga";
export type HostKeyType = "ed25519" | "ecdsa" | "rsa";
export const DEFAULT_HOST_KEY_TYPES: readonly HostKeyType[] = ["ed25519", "ecdsa", "rsa"];

export function hostKeyFile(type: HostKeyType): string {
  return `ssh_host_${type}_key`;
}

export const STAGE1 = `#!/bin/bash
# Stage 1 of a machine's boot, as the machine's root: PID 1 of fresh PID, mount, UTS, IPC, network and cgroup
# namespaces, all owned by the machine's user namespace. The host mounted the root (the image's overlay and
# the read-only idmapped system directories); this adds the machine's own proc, sys, dev and run, pivots
# into the root, drops every host mount, waits until the host has wired the network, and hands over to
# ${CTL}/init. It runs in the machine's directory and uses relative paths only: the machine's root is nobody
# to the host and need not be able to reach that directory from /.
# usage: (in <machine dir>) stage1 <this script's host path, which names the supervisor> <hostname>
set -euo pipefail
name=$2
# Links announce their addresses when they come up (the host wires them while this runs; a machine's root
# may set its own network namespace's settings). Best effort: init announces them again.
{ echo 1 > /proc/sys/net/ipv4/conf/all/arp_notify; } 2>/dev/null || :
# The host's mounts are locked in this namespace and pivot_root refuses a locked new root: bind it anew.
mount --rbind root root
cd root
mount -t proc -o nosuid,nodev,noexec proc proc
mount -t sysfs -o nosuid,nodev,noexec sysfs sys
mount -t tmpfs -o mode=755,nosuid,size=1024k tmpfs dev
# A user namespace cannot make device nodes: the harmless ones are bound from the host, as containers do.
touch dev/null dev/zero dev/full dev/random dev/urandom dev/tty
for d in null zero full random urandom tty; do
  mount --bind "/dev/$d" "dev/$d"
done
mkdir -m 755 dev/pts
mkdir -m 1777 dev/shm
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 devpts dev/pts
ln -s pts/ptmx dev/ptmx
ln -s /proc/self/fd dev/fd
ln -s /proc/self/fd/0 dev/stdin
ln -s /proc/self/fd/1 dev/stdout
ln -s /proc/self/fd/2 dev/stderr
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs dev/shm
mount -t tmpfs -o mode=755,nosuid,nodev tmpfs run
# A second, hidden sysfs: a user namespace may mount sysfs (as \`ip netns exec\` and \`ip -n\` do for a
# network namespace) only while one at least as writable is fully visible, and ip unmounts /sys first.
# (Writable as on a VM: what the host owns in sysfs stays the host's; the machine's own links are its.)
mkdir -m 0 run/.sysfs
mount -t sysfs -o nosuid,nodev,noexec sysfs run/.sysfs
mkdir -p ".${CTL}" run/sshd run/lock
# The control directory holds a copy of the machine's host keys (host-keys/), owned by its root.
mount --bind ../ctl ".${CTL}"
if [ -e usr/bin/systemctl ]; then mount --bind ../ctl/bin/systemctl usr/bin/systemctl; fi
printf '%s\\n' "$name" > etc/hostname
printf '127.0.0.1\\tlocalhost\\n127.0.1.1\\t%s\\n::1\\tlocalhost ip6-localhost ip6-loopback\\n' "$name" > etc/hosts
hostname "$name"
pivot_root . .
umount -l .
cd /
read -r _ < ${CTL}/network
exec ${CTL}/init
`;

export const INIT = `#!/bin/bash
# PID 1 of a machine. Boots it like cloud-init: runs the user-data as root, makes sure the machine's own
# sshd runs, reports through files in ${CTL} (the host watches them), then only reaps orphans.
# Every process it starts is one more wait on a busy host: what bash can do itself, it does
# (docs/machines.md#creating-many-machines).
export PATH=${CTL}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
umask 022
cd /
# A timestamp in milliseconds without date(1): bash's clock and printf.
log() { local -x TZ=UTC; local t=$EPOCHREALTIME; printf '%(%FT%T)T.%sZ init: %s\\n' "\${t%.*}" "\${t: -6:3}" "$*"; }
# The host reads a status file as soon as it appears: ready and user-data.exit only need to exist with
# their content, written in one write; failed is written whole (temp file and rename).
report() { printf '%s\\n' "$2" > "${CTL}/$1"; }
# A pool machine (docs/adr/0015-bastion-machine-pool.md) is prepared, reports that it is held and waits on the
# control directory's pipe until the host has claimed it: given it a name, networks, tables and user-data.
if [ -e ${CTL}/hold ]; then
  code=0
  if [ -s ${CTL}/prepare ]; then ${CTL}/prepare </dev/null >${CTL}/prepare.log 2>&1 || code=$?; fi
  if [ "$code" != 0 ]; then
    printf '%s\n' "prepare exited with $code (see ${CTL}/prepare.log)" > ${CTL}/failed.tmp && mv ${CTL}/failed.tmp ${CTL}/failed
    while :; do sleep infinity & wait $!; done
  fi
  report held ok
  read -r _ < ${CTL}/network
  if [ -s ${CTL}/hostname ]; then
    read -r name < ${CTL}/hostname
    hostname "$name"
    printf '%s\n' "$name" > /etc/hostname
    printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\tlocalhost ip6-localhost ip6-loopback\n' "$name" > /etc/hosts
  fi
fi
log "booting $(</proc/sys/kernel/hostname)"
# Announce the IPv4 addresses (gratuitous ARP), as a VM's network start-up does: addresses are reused by
# new machines with new MACs, and the kernel's own announcement when the link comes up (arp_notify) can
# go out before the bridge forwards, leaving neighbours sending to the old MAC for up to a minute.
# In the background: nothing below waits for it.
(
  ip -4 -o addr show scope global | while read -r _ dev _ cidr _; do
    arping -q -U -c 1 -I "$dev" "\${cidr%/*}" </dev/null >/dev/null 2>&1 &
  done
) </dev/null >/dev/null 2>&1 &
code=0
if [ -s ${CTL}/user-data ]; then
  read -rn 2 magic < ${CTL}/user-data || :
  if [ "$magic" = "#!" ]; then
    ${CTL}/user-data </dev/null >${CTL}/user-data.log 2>&1 || code=$?
  else
    /bin/sh ${CTL}/user-data </dev/null >${CTL}/user-data.log 2>&1 || code=$?
  fi
fi
report user-data.exit "$code"
log "user-data exited with $code"
# sshd usually runs already (the user-data started it): then nothing is started to find that out.
pid=""
[ -s ${CTL}/sshd.pid ] && pid=$(<${CTL}/sshd.pid)
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || systemctl start sshd; then
  report ready ok
else
  printf '%s\\n' "sshd did not start (see ${CTL}/sshd.log)" > ${CTL}/failed.tmp && mv ${CTL}/failed.tmp ${CTL}/failed
fi
while :; do sleep infinity & wait $!; done
`;

export const SYSTEMCTL = `#!/bin/bash
# systemctl inside a machine (no systemd runs there): manages the machine's one service, its own sshd
# (units "sshd" and "ssh"), configured by ${CTL}/sshd_config with host keys in ${CTL}/host-keys.
# Other units are "not found" (exit 5), as systemctl says for units that do not exist.
pidfile=${CTL}/sshd.pid
config=${CTL}/sshd_config
running() { [ -s "$pidfile" ] && kill -0 "$(<"$pidfile")" 2>/dev/null; }
start() {
  running && return 0
  : > "$pidfile"
  # A configuration sshd refuses ends it at once: the loop below sees it exit (no separate \`sshd -t\`).
  /usr/sbin/sshd -D -e -f "$config" </dev/null >>${CTL}/sshd.log 2>&1 &
  local pid=$! i
  # Naps without a process: a read that times out on the control directory's pipe, opened for reading
  # and writing so it never blocks on open (sleep(1) where there is no such pipe).
  local nap="sleep 0.05"
  if [ -p ${CTL}/network ] && exec 9<>${CTL}/network; then nap="read -r -t 0.01 -u 9 _"; fi
  # sshd writes its pid file once its sockets listen: that is the moment it is started.
  for ((i = 0; i < 3000; i++)); do
    [ -s "$pidfile" ] && return 0
    kill -0 "$pid" 2>/dev/null || { echo "sshd exited; see ${CTL}/sshd.log" >&2; return 1; }
    $nap || :
  done
  echo "sshd did not start listening within 30 s" >&2
  return 1
}
stop() {
  running || return 0
  local pid i
  pid=$(cat "$pidfile")
  kill "$pid"
  for ((i = 0; i < 200; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  rm -f "$pidfile"
}
cmd="" now=0 units=()
for a in "$@"; do
  case "$a" in
    --now) now=1 ;;
    -*) ;;
    *) if [ -z "$cmd" ]; then cmd=$a; else units+=("$a"); fi ;;
  esac
done
case "$cmd" in daemon-reload | daemon-reexec | "") exit 0 ;; esac
rc=0
for u in "\${units[@]}"; do
  unit=\${u%.service}
  case "$unit" in
    ssh | sshd) ;;
    *)
      case "$cmd" in
        is-active | status) echo inactive; rc=3 ;;
        *) echo "Failed to $cmd $unit.service: Unit $unit.service not found." >&2; rc=5 ;;
      esac
      continue ;;
  esac
  case "$cmd" in
    start) start || rc=1 ;;
    stop) stop ;;
    restart | try-restart) stop; start || rc=1 ;;
    reload | force-reload | reload-or-restart) if running; then kill -HUP "$(cat "$pidfile")"; else start || rc=1; fi ;;
    enable) if [ $now = 1 ]; then start || rc=1; fi ;;
    disable) if [ $now = 1 ]; then stop; fi ;;
    mask | unmask | preset) ;;
    is-active | status) if running; then echo active; else echo inactive; rc=3; fi ;;
    is-enabled) echo enabled ;;
    *) echo "systemctl (machine): unsupported command $cmd" >&2; rc=1 ;;
  esac
done
exit $rc
`;

export type SshdOptionValue = string | number | boolean | readonly string[];

export interface SshdConfigInput {
  machine: string;
  port: number;
  listenAddresses: readonly string[];
  hostKeyTypes: readonly HostKeyType[];
  /** Extra or overriding sshd_config keywords (case-insensitive; a given keyword replaces the default). */
  options?: Readonly<Record<string, SshdOptionValue>>;
}

const DEFAULT_OPTIONS: Record<string, SshdOptionValue> = {
  UsePAM: true,
  PubkeyAuthentication: true,
  PasswordAuthentication: false,
  KbdInteractiveAuthentication: false,
  PermitRootLogin: false,
  AuthorizedKeysFile: ".ssh/authorized_keys",
  PrintMotd: false,
  Subsystem: ["sftp", "/usr/lib/openssh/sftp-server"],
};

function optionValue(key: string, v: SshdOptionValue): string {
  const text = typeof v === "boolean" ? (v ? "yes" : "no") : typeof v === "number" ? String(v) : typeof v === "string" ? v : v.join(" ");
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(key) || /[\n\r]/.test(text) || text.trim() === "") {
    throw new HostSpecError(`invalid sshd option ${key} ${JSON.stringify(v)}`);
  }
  return text;
}

function listenAddress(addr: string, port: number): string {
  return addr.includes(":") ? `[${addr}]:${port}` : `${addr}:${port}`;
}

/** A standalone sshd_config (the host's /etc/ssh is never read): the machine's own host keys and pid file. */
export function renderSshdConfig(input: SshdConfigInput): string {
  if (!Number.isInteger(input.port) || input.port < 1 || input.port > 65535) throw new HostSpecError(`invalid sshd port ${input.port}`);
  const fixed = new Set(["port", "listenaddress", "hostkey", "pidfile"]);
  const merged = new Map<string, [string, SshdOptionValue]>();
  for (const [k, v] of [...Object.entries(DEFAULT_OPTIONS), ...Object.entries(input.options ?? {})]) {
    if (fixed.has(k.toLowerCase())) throw new HostSpecError(`sshd option ${k} is set by the machine spec`);
    merged.set(k.toLowerCase(), [k, v]);
  }
  const lines = [
    `# sshd of machine ${input.machine}, written by host/ (the host's /etc/ssh is not used)`,
    `Port ${input.port}`,
    ...input.listenAddresses.map((a) => `ListenAddress ${listenAddress(a, input.port)}`),
    ...input.hostKeyTypes.map((t) => `HostKey ${CTL}/host-keys/${hostKeyFile(t)}`),
    `PidFile ${CTL}/sshd.pid`,
    ...[...merged.values()].map(([k, v]) => `${k} ${optionValue(k, v)}`),
  ];
  return lines.join("\n") + "\n";
}
