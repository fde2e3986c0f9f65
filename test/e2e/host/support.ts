// Shared by the host/ e2e tests: root check, a LinuxHost on a fresh state directory with a prefix of its
// own (tests run in parallel with other files), connectivity probes between namespaces, and leak checks
// that compare the host before and after.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { readdirSync, readlinkSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LinuxHost } from "../../../src/host/index.ts";
import { isBelow, mountPoints } from "../../../src/host/mounts.ts";
import { isAlive, listeningTcp, readCmdline, readStartTime } from "../../../src/host/procs.ts";

export const skipUnlessRoot: string | false =
  process.getuid?.() === 0 ? false : "host e2e tests need root (network namespaces, mounts, machines): run them as root";

export const NC = "nc.openbsd";

export interface HostSnapshot {
  netns: string[];
  links: string[];
  mounts: string[];
}

async function run(cmd: string, args: string[]): Promise<string> {
  const { execFile } = await import("node:child_process");
  return new Promise((resolve, reject) => execFile(cmd, args, (err, stdout) => (err ? reject(err) : resolve(stdout))));
}

export async function snapshot(): Promise<HostSnapshot> {
  const netns = (await run("ip", ["netns", "list"])).split("\n").map((l) => l.split(" ")[0] ?? "").filter(Boolean);
  const links = (await run("ip", ["-o", "link", "show"])).split("\n").map((l) => /^\d+:\s+([^:@\s]+)/.exec(l)?.[1] ?? "").filter(Boolean);
  return { netns, links, mounts: await mountPoints() };
}

/** Network namespace ids ("net:[...]") and PID namespace ids ("pid:[...]") the test created, for process leak checks. */
export class NamespaceTracker {
  readonly ids = new Set<string>();
  netns(name: string): void {
    this.ids.add(`net:[${statSync(`/run/netns/${name}`).ino}]`);
  }
  pidnsOf(pid: number): void {
    this.ids.add(readlinkSync(`/proc/${pid}/ns/pid`));
  }
  /**
   * Live processes in any tracked namespace. Not counted: zombies (they wait for whoever reaps orphans) and
   * processes with an empty command line, which have already given up their memory inside exit() and are only
   * finishing it (an OpenVPN closing its tun device can take seconds there on a loaded machine).
   */
  processes(): number[] {
    const out: number[] = [];
    for (const p of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
      if (!isAlive({ pid: Number(p), startTime: readStartTime(Number(p)) ?? "" })) continue;
      if (readCmdline(Number(p)).length === 0) continue;
      for (const kind of ["net", "pid"]) {
        try {
          if (this.ids.has(readlinkSync(`/proc/${p}/ns/${kind}`))) {
            out.push(Number(p));
            break;
          }
        } catch {
          // exited meanwhile
        }
      }
    }
    return out;
  }
}

export interface TestHost {
  host: LinuxHost;
  stateDir: string;
  prefix: string;
  before: HostSnapshot;
  tracker: NamespaceTracker;
}

export async function newTestHost(): Promise<TestHost> {
  const prefix = `g${Math.random().toString(36).slice(2, 5).padEnd(3, "0")}-`;
  const stateDir = await mkdtemp(join(tmpdir(), "ga-e2e-"));
  return { host: new LinuxHost({ stateDir, prefix }), stateDir, prefix, before: await snapshot(), tracker: new NamespaceTracker() };
}

/**
 * removeAll, then: nothing of ours in `ip netns list`, `ip link`, the mount table or the process table,
 * compared with the snapshot taken before the test. Runs in `after`, even when the test failed.
 */
export async function cleanUpAndAssertNoLeaks(t: TestHost | undefined): Promise<void> {
  if (!t) return;
  try {
    await t.host.removeAll();
    const after = await snapshot();
    const added = (a: string[], b: string[]) => a.filter((x) => !b.includes(x));
    const ours = (name: string) => name.startsWith(t.prefix);
    assert.deepEqual(added(after.netns, t.before.netns).filter(ours), [], "network namespaces leaked");
    assert.deepEqual(added(after.links, t.before.links).filter(ours), [], "links leaked");
    assert.deepEqual(after.mounts.filter((m) => isBelow(t.stateDir, m)), [], "mounts leaked");
    assert.deepEqual(added(after.mounts, t.before.mounts).filter((m) => m.startsWith("/run/netns/") && ours(m.slice(11))), []);
    // A process killed by removeAll may still be exiting on a loaded machine: a leak is one still there after 5 s.
    const deadline = Date.now() + 5000;
    while (t.tracker.processes().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const left = t.tracker.processes();
    assert.deepEqual(left.map((pid) => `${pid} ${readCmdline(pid).join(" ")}`), [], "processes leaked in the test's namespaces");
    assert.deepEqual(await t.host.inventory(), { netns: [], links: [], tables: [], mounts: [], processes: [] });
  } finally {
    await rm(t.stateDir, { recursive: true, force: true });
  }
}

/** Resolves once the process listens on the port (its namespace's /proc/net/tcp), polling briefly. */
export async function waitListening(pid: number, port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!listeningTcp(pid).some((s) => s.port === port)) {
    if (Date.now() > deadline) throw new Error(`pid ${pid} does not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A TCP connect from inside a namespace: true when it succeeds within timeoutSeconds. */
export async function canConnect(host: LinuxHost, netns: string, address: string, port: number, timeoutSeconds = 1): Promise<boolean> {
  const r = await host.execInNetns(netns, NC, ["-z", "-w", String(timeoutSeconds), address, String(port)], { okExitCodes: [0, 1] });
  return r.exitCode === 0;
}

export async function canPing(host: LinuxHost, netns: string, address: string): Promise<boolean> {
  const r = await host.execInNetns(netns, "ping", ["-c", "1", "-w", "3", "-i", "0.2", "-q", address], { okExitCodes: [0, 1] });
  return r.exitCode === 0;
}

/** Starts a recorded TCP listener (nc -lkdvn) in a namespace and waits for it to listen. */
export async function listen(host: LinuxHost, netns: string, name: string, address: string, port: number): Promise<{ pid: number; log: string }> {
  const st = await host.startProcess({ name, netns, command: NC, args: ["-lkdvn", address, String(port)] });
  assert.ok(st.process);
  await waitListening(st.process.pid, port);
  return { pid: st.process.pid, log: st.logFile };
}

export async function readLog(path: string): Promise<string> {
  return readFile(path, "utf8").catch(() => "");
}

/** The log once it matches (a listener writes after the client has gone), polling briefly; else its text. */
export async function waitForLog(path: string, re: RegExp, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await readLog(path);
    if (re.test(text) || Date.now() > deadline) return text;
    await new Promise((r) => setTimeout(r, 10));
  }
}
