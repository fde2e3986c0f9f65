// Reading processes from /proc. A process is named by pid + start time (field 22 of /proc/<pid>/stat),
// so a recorded pid that the kernel has since reused is never mistaken for ours.
import { readFileSync, readdirSync, readlinkSync } from "node:fs";

export interface ProcessRef {
  pid: number;
  startTime: string;
}

function stat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid ...": comm may contain spaces and parentheses, so split after the last ")".
    const rest = text.slice(text.lastIndexOf(")") + 2).trim().split(" ");
    return rest; // rest[0] is field 3 (state)
  } catch {
    return undefined;
  }
}

export function readStartTime(pid: number): string | undefined {
  return stat(pid)?.[19];
}

export function readPpid(pid: number): number | undefined {
  const s = stat(pid);
  return s ? Number(s[1]) : undefined;
}

/** True while the process exists, has not exited (zombie) and is the one recorded. */
export function isAlive(ref: ProcessRef): boolean {
  const s = stat(ref.pid);
  return s !== undefined && s[0] !== "Z" && s[0] !== "X" && s[19] === ref.startTime;
}

export function allPids(): number[] {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
}

export function readCmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((s) => s !== "");
  } catch {
    return [];
  }
}

/** The namespace link of a process, e.g. "pid:[4026532]" for kind "pid"; undefined when gone. */
export function namespaceOf(pid: number | "self", kind: "pid" | "net" | "mnt" | "uts"): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/${kind}`);
  } catch {
    return undefined;
  }
}

/** Direct children of a process (needs CONFIG_PROC_CHILDREN; falls back to scanning ppids). */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return allPids().filter((p) => readPpid(p) === pid);
  }
}

export function ref(pid: number): ProcessRef | undefined {
  const startTime = readStartTime(pid);
  return startTime === undefined ? undefined : { pid, startTime };
}

/** Waits until none of the processes is alive; resolves false on timeout. Exits are not observable by event
 * for processes we did not spawn, so this polls /proc briefly. */
export async function waitGone(refs: readonly ProcessRef[], timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  for (;;) {
    if (!refs.some(isAlive)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 100);
  }
}

export interface Socket {
  address: string;
  port: number;
}

function hexToIPv4(hex: string): string {
  const n = parseInt(hex, 16);
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255].join(".");
}

function hexToIPv6(hex: string): string {
  // Four 32-bit words, each in host (little-endian) byte order.
  const bytes: number[] = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8);
    for (let b = 3; b >= 0; b--) bytes.push(parseInt(word.slice(b * 2, b * 2 + 2), 16));
  }
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return compressIPv6(groups);
}

export function compressIPv6(groups: string[]): string {
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > bestLen && j - i > 1) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestStart < 0) return groups.join(":");
  return `${groups.slice(0, bestStart).join(":")}::${groups.slice(bestStart + bestLen).join(":")}`;
}

/** TCP sockets in LISTEN state in the network namespace of `pid` (read from /proc/<pid>/net/tcp and tcp6, or the files named). */
export function listeningTcp(pid: number, families: readonly ("tcp" | "tcp6")[] = ["tcp", "tcp6"]): Socket[] {
  const out: Socket[] = [];
  for (const file of families) {
    const v6 = file === "tcp6";
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${file}`, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 4 || cols[3] !== "0A") continue;
      const [addrHex, portHex] = (cols[1] ?? "").split(":");
      if (!addrHex || !portHex) continue;
      out.push({ address: v6 ? hexToIPv6(addrHex) : hexToIPv4(addrHex), port: parseInt(portHex, 16) });
    }
  }
  return out;
}

/**
 * Machine supervisors found by their command line (`unshare ... <machine dir>/ctl/stage1 <hostname>`), for
 * the given machine directories, or for every directory below `machinesDir` when none are given; with
 * their children. This also finds a supervisor no record names (its starter killed between starting
 * and recording it), so stopping a machine never leaves one behind.
 */
export function supervisorsOf(machinesDir: string, dirs?: readonly string[]): ProcessRef[] {
  const wanted = dirs ? new Set(dirs.map((d) => `${d}/ctl/stage1`)) : undefined;
  const prefix = machinesDir.endsWith("/") ? machinesDir : `${machinesDir}/`;
  const out: ProcessRef[] = [];
  for (const pid of allPids()) {
    if (pid === process.pid) continue;
    const argv = readCmdline(pid);
    if (argv[0] !== "unshare") continue;
    const marker = argv.find((a) => a.startsWith(prefix) && a.endsWith("/ctl/stage1"));
    if (!marker || (wanted && !wanted.has(marker))) continue;
    const r = ref(pid);
    if (!r) continue;
    out.push(r);
    for (const c of childrenOf(pid)) {
      const cr = ref(c);
      if (cr) out.push(cr);
    }
  }
  return out;
}
