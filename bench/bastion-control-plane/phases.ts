// The measurements of bench/bastion-control-plane. Readiness is observed through a watch on the
// garden Bastions (no polling): a Bastion is Ready at the first event with BastionReady=True for
// its current generation; it is gone at its DELETED event.
import type { Bastion } from "../../src/apis/operations/v1alpha1/types.ts";
import type { Client } from "../../src/client/client.ts";
import { Bastions } from "../../src/client/garden.ts";
import { summarize } from "../support/stats.ts";

export class ReadyWatcher {
  private readonly sentAt = new Map<string, number>();
  private readonly readyAt = new Map<string, number>();
  private readonly goneAt = new Map<string, number>();
  private readonly abort = new AbortController();
  private waiters: (() => void)[] = [];

  constructor(
    private readonly client: Client,
    private readonly namespace: string,
  ) {}

  async start(): Promise<void> {
    const list = await this.client.list(Bastions, { namespace: this.namespace });
    const run = (rv: string | undefined): void => {
      void this.client
        .watch(Bastions, { namespace: this.namespace, resourceVersion: rv, allowWatchBookmarks: true }, (ev) => this.onEvent(ev.type, ev.object as Bastion), this.abort.signal)
        .then(
          () => {
            if (!this.abort.signal.aborted) run(this.lastRV);
          },
          () => {
            if (!this.abort.signal.aborted) run(this.lastRV);
          },
        );
    };
    this.lastRV = list.metadata?.resourceVersion;
    run(this.lastRV);
  }

  private lastRV: string | undefined;

  private onEvent(type: string, b: Bastion): void {
    if (b.metadata?.resourceVersion) this.lastRV = b.metadata.resourceVersion;
    const name = b.metadata?.name ?? "";
    const now = performance.now();
    if (type === "DELETED") {
      if (!this.goneAt.has(name)) this.goneAt.set(name, now);
    } else if (type === "ADDED" || type === "MODIFIED") {
      const c = b.status?.conditions?.find((x) => x.type === "BastionReady");
      if (c?.status === "True" && b.status?.observedGeneration === b.metadata.generation && !this.readyAt.has(name)) this.readyAt.set(name, now);
    }
    for (const w of this.waiters.splice(0)) w();
  }

  sent(name: string): void {
    this.sentAt.set(name, performance.now());
  }

  readyTime(name: string): number | undefined {
    return this.readyAt.get(name);
  }

  goneTime(name: string): number | undefined {
    return this.goneAt.get(name);
  }

  latency(name: string): number | undefined {
    const s = this.sentAt.get(name);
    const r = this.readyAt.get(name);
    return s !== undefined && r !== undefined ? r - s : undefined;
  }

  /** Resolves when cond() holds after some event; rejects after timeoutMs. */
  async until(what: string, cond: () => boolean, timeoutMs: number): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!cond()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 250);
        this.waiters.push(() => (clearTimeout(t), resolve()));
      });
    }
  }

  stop(): void {
    this.abort.abort();
  }
}

async function forEachConcurrent(n: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

export interface Figures {
  readyPerSec: number;
  latency: ReturnType<typeof summarize>;
}

function latencies(w: ReadyWatcher, names: string[]): number[] {
  return names.map((n) => w.latency(n)).filter((x): x is number => x !== undefined);
}

/** Creates n Bastions with `concurrency` creators; Ready per second from the first create to the last Ready. */
export async function burst(w: ReadyWatcher, n: number, concurrency: number, create: (i: number) => Promise<void>): Promise<Figures> {
  const names = Array.from({ length: n }, (_, i) => `burst-${i}`);
  const start = performance.now();
  const cpu = process.cpuUsage();
  await forEachConcurrent(n, concurrency, create);
  const created = performance.now();
  await w.until("burst ready", () => names.every((x) => w.readyTime(x) !== undefined), 300_000);
  const end = Math.max(...names.map((x) => w.readyTime(x)!));
  const used = process.cpuUsage(cpu);
  console.error(`burst: creates done after ${(created - start).toFixed(0)} ms, all ready after ${(end - start).toFixed(0)} ms, cpu ${((used.user + used.system) / 1000).toFixed(0)} ms`);
  return { readyPerSec: n / ((end - start) / 1000), latency: summarize(latencies(w, names)) };
}

/** Creates n Bastions at `rate` per second (open loop); create -> Ready latencies. */
export async function paced(w: ReadyWatcher, n: number, rate: number, create: (i: number) => Promise<void>): Promise<Figures> {
  const names = Array.from({ length: n }, (_, i) => `steady-${i}`);
  const start = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inflight.push(create(i));
  }
  await Promise.all(inflight);
  await w.until("steady ready", () => names.every((x) => w.readyTime(x) !== undefined), 120_000).catch(() => undefined);
  const end = Math.max(...names.map((x) => w.readyTime(x) ?? 0));
  return { readyPerSec: n / ((end - start) / 1000), latency: summarize(latencies(w, names)) };
}

/** Deletes n Bastions; gone (finalizers released after the seed side is cleaned up) per second. */
export async function deleteAll(w: ReadyWatcher, client: Client, namespace: string, n: number, concurrency: number, name: (i: number) => string): Promise<{ gonePerSec: number }> {
  const names = Array.from({ length: n }, (_, i) => name(i));
  const start = performance.now();
  await forEachConcurrent(n, concurrency, async (i) => {
    await client.delete(Bastions, { namespace, name: name(i) });
  });
  await w.until("deleted bastions gone", () => names.every((x) => w.goneTime(x) !== undefined), 300_000);
  const end = Math.max(...names.map((x) => w.goneTime(x)!));
  return { gonePerSec: n / ((end - start) / 1000) };
}
