// The measured phases of bench/bastion-local against a running landscape: Bastions created by the
// project member in `garden-local` for Shoot `local`, readiness seen through the garden watch
// (ReadyWatcher of bench/bastion-control-plane), and timed `gardenctl ssh NODE -- true` runs.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import type { Bastion } from "../../src/apis/operations/v1alpha1/types.ts";
import type { Client } from "../../src/client/client.ts";
import { Bastions } from "../../src/client/garden.ts";
import { PROJECT_NAMESPACE, SHOOT } from "../../src/landscape/layout.ts";
import { DEFAULT_PUBLIC_CIDR } from "../../src/provider-local/network/networks.ts";
import { summarize } from "../support/stats.ts";
import type { ReadyWatcher } from "../bastion-control-plane/phases.ts";
import type { HopTracer } from "./trace.ts";

export const REPO = join(import.meta.dirname, "../..");

export function bastion(name: string, sshPublicKey: string): Bastion {
  return { metadata: { name, namespace: PROJECT_NAMESPACE }, spec: { shootRef: { name: SHOOT }, sshPublicKey, ingress: [{ ipBlock: { cidr: DEFAULT_PUBLIC_CIDR } }] } };
}

async function forEachConcurrent(n: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

export interface Phase {
  client: Client;
  watcher: ReadyWatcher;
  publicKey: string;
  readyTimeoutMs: number;
  /** With --trace: follows each bastion of createWaiting hop by hop (trace.ts). */
  trace?: { tracer: HopTracer; hostState: string; machineOf: (name: string) => string };
}

/**
 * Creates n Bastions `prefix-<i>`, `concurrency` in flight: each creator waits for its Bastion's
 * Ready before creating the next. Returns the create -> Ready latencies and the names (left alive).
 */
export async function createWaiting(p: Phase, prefix: string, n: number, concurrency: number): Promise<{ names: string[]; latency: ReturnType<typeof summarize>; failed: number }> {
  const names = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  let failed = 0;
  await forEachConcurrent(n, concurrency, async (i) => {
    const name = names[i]!;
    p.watcher.sent(name);
    p.trace?.tracer.sent(name);
    await p.client.create(Bastions, bastion(name, p.publicKey));
    p.trace?.tracer.created(name);
    await p.watcher.until(`bastion ${name} ready`, () => p.watcher.readyTime(name) !== undefined, p.readyTimeoutMs).catch(() => failed++);
    p.trace?.tracer.addMachine(name, p.trace.hostState, p.trace.machineOf(name));
  });
  const lat = names.map((x) => p.watcher.latency(x)).filter((x): x is number => x !== undefined);
  return { names, latency: summarize(lat), failed };
}

/** Creates n Bastions without waiting, `concurrency` creators; resolves with how many became Ready within timeoutMs. */
export async function createAll(p: Phase, prefix: string, n: number, concurrency: number, timeoutMs: number): Promise<{ names: string[]; ready: number; ms: number }> {
  const names = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  const start = performance.now();
  await forEachConcurrent(n, concurrency, async (i) => {
    p.watcher.sent(names[i]!);
    await p.client.create(Bastions, bastion(names[i]!, p.publicKey));
  });
  const count = (): number => names.filter((x) => p.watcher.readyTime(x) !== undefined).length;
  await p.watcher.until(`${n} bastions ready`, () => count() === n, timeoutMs).catch(() => undefined);
  return { names, ready: count(), ms: performance.now() - start };
}

/** Deletes the Bastions and waits until they are gone (machines removed, finalizers released). */
export async function deleteAndWait(p: Phase, names: string[], concurrency: number, timeoutMs: number): Promise<number> {
  const start = performance.now();
  await forEachConcurrent(names.length, concurrency, async (i) => {
    await p.client.delete(Bastions, { namespace: PROJECT_NAMESPACE, name: names[i]! }).catch(() => undefined);
  });
  await p.watcher.until("deleted bastions gone", () => names.every((x) => p.watcher.goneTime(x) !== undefined), timeoutMs);
  return performance.now() - start;
}

/** gardenctl processes still running (ended with SIGTERM when the bench is interrupted, so they delete their bastions). */
export const running = new Set<ChildProcess>();

/** One `gardenctl ssh --garden local --project local --shoot local NODE -- CMD...`; wall time in ms. */
export function gardenctlSSH(gctlHome: string, node: string, command: string[], timeoutMs = 120_000): Promise<{ code: number | null; ms: number; out: string }> {
  const args = [join(REPO, "bin", "gardenctl.js"), "ssh", "--garden", "local", "--project", "local", "--shoot", "local", node, "--", ...command];
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, GCTL_HOME: gctlHome }, stdio: ["ignore", "pipe", "pipe"] });
    running.add(child);
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, ms: performance.now() - start, out });
    });
  });
}
