// Where the time of one bastion goes (bench/bastion-local --trace): the milestones of each Bastion from
// the bench's create to the garden's BastionReady, in wall-clock milliseconds. API milestones are the
// arrival of watch events on the garden Bastions and on the seed's extension Bastions (their changes:
// finalizers, the operation annotation picked up, lastOperation, status.ingress); machine milestones are
// the times the host's files record (the machine directory, its host keys, control files, console log,
// its wiring's records, and the status files its init and sshd write), read right after the Bastion got
// Ready and before it is deleted.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionBastion } from "../../src/apis/extensions/v1alpha1/types.ts";
import type { Bastion } from "../../src/apis/operations/v1alpha1/types.ts";
import type { Client } from "../../src/client/client.ts";
import { Bastions } from "../../src/client/garden.ts";
import { ExtensionBastions } from "../../src/extensions/resources.ts";
import { percentile } from "../support/stats.ts";

/** The milestones in the order they happen on the path; a bastion may lack some (a missing file). */
export const MILESTONES = [
  "sent",
  "garden: created (response)",
  "garden: finalizer gardener",
  "seed: extension created",
  "seed: operation picked up",
  "seed: finalizer",
  "seed: Processing",
  "machine: claimed (held machine)",
  "machine: directory",
  "machine: host keys",
  "machine: control files",
  "machine: root mounted",
  "machine: supervisor spawned",
  "machine: wired (veths, addresses, tables)",
  "machine: stage 1 released",
  "machine: init started",
  "machine: user-data done",
  "machine: sshd listening",
  "machine: ready reported",
  "seed: ingress written",
  "seed: Succeeded",
  "garden: Ready",
] as const;
export type Milestone = (typeof MILESTONES)[number];

const statMs = (path: string, birth = false): number | undefined => {
  try {
    const s = statSync(path);
    return birth && s.birthtimeMs > 0 ? s.birthtimeMs : s.mtimeMs;
  } catch {
    return undefined;
  }
};

/** The ms timestamp of init's "booting" console line (`2026-01-01T00:00:00.123Z init: booting ...`). */
export function bootLineMs(consoleLog: string): number | undefined {
  const m = /^(\S+) init: booting/m.exec(consoleLog);
  const t = m ? Date.parse(m[1]!) : NaN;
  return Number.isFinite(t) ? t : undefined;
}

/** Machine milestones from the files of machine `machine` below the provider's host state directory. */
export function machineMilestones(hostState: string, machine: string): Partial<Record<Milestone, number>> {
  const records = join(hostState, "records");
  const out: Partial<Record<Milestone, number>> = {};
  let recorded: { dir?: string; claimedFrom?: string } = {};
  try {
    recorded = JSON.parse(readFileSync(join(records, `${encodeURIComponent(`machine/${machine}`)}.json`), "utf8")) as typeof recorded;
  } catch {
    // no record: the machine is gone
  }
  // A machine claimed from provider-local's pool keeps the held machine's directory (docs/adr/0015-bastion-machine-pool.md).
  const dir = recorded.dir ?? join(hostState, "machines", machine);
  const put = (k: Milestone, v: number | undefined) => v !== undefined && (out[k] = v);
  put("machine: directory", statMs(dir, true));
  put("machine: host keys", statMs(join(dir, "host-keys", "ssh_host_ed25519_key")));
  put("machine: control files", statMs(join(dir, "ctl", "sshd_config")));
  put("machine: root mounted", statMs(join(records, `${encodeURIComponent(`mount/${dir}/root`)}.json`)));
  put("machine: supervisor spawned", statMs(join(dir, "console.log"), true));
  try {
    const rec = JSON.parse(readFileSync(join(records, `${encodeURIComponent(`machine/${machine}`)}.json`), "utf8")) as { netns: string };
    const links = readdirSync(records).filter((f) => f.startsWith(encodeURIComponent(`link/${rec.netns}/`)));
    const times = links.map((f) => statMs(join(records, f))).filter((x): x is number => x !== undefined);
    if (times.length > 0) put("machine: wired (veths, addresses, tables)", Math.max(...times));
  } catch {
    // no record: the machine is gone
  }
  put("machine: stage 1 released", statMs(join(dir, "ctl", "network")));
  try {
    put("machine: init started", bootLineMs(readFileSync(join(dir, "console.log"), "utf8")));
  } catch {
    // no console log
  }
  put("machine: user-data done", statMs(join(dir, "ctl", "user-data.exit")));
  put("machine: sshd listening", statMs(join(dir, "ctl", "sshd.pid")));
  put("machine: ready reported", statMs(join(dir, "ctl", "ready")));
  const claimed = recorded.claimedFrom !== undefined ? statMs(join(dir, "claimed-by")) : undefined;
  if (claimed !== undefined) {
    // What the held machine did before its claim is not on the bastion's path.
    for (const k of Object.keys(out) as Milestone[]) if (out[k]! < claimed) delete out[k];
    out["machine: claimed (held machine)"] = claimed;
  }
  return out;
}

/** Watches both Bastion kinds and records each bastion's API milestones as they arrive. */
export class HopTracer {
  private readonly seen = new Map<string, Partial<Record<Milestone, number>>>();
  private readonly abort = new AbortController();

  constructor(
    private readonly garden: Client,
    private readonly gardenNamespace: string,
    private readonly seed: Client,
    private readonly seedNamespace: string,
  ) {}

  private mark(name: string, k: Milestone, at = Date.now()): void {
    const m = this.seen.get(name) ?? {};
    if (m[k] === undefined) m[k] = at;
    this.seen.set(name, m);
  }

  sent(name: string): void {
    this.mark(name, "sent");
  }

  created(name: string): void {
    this.mark(name, "garden: created (response)");
  }

  /** Adds the machine's file milestones of a bastion (call it after Ready, before its deletion). */
  addMachine(name: string, hostState: string, machine: string): void {
    for (const [k, v] of Object.entries(machineMilestones(hostState, machine))) this.mark(name, k as Milestone, v);
  }

  milestones(name: string): Partial<Record<Milestone, number>> {
    return { ...this.seen.get(name) };
  }

  async start(): Promise<void> {
    const follow = <T extends Bastion | ExtensionBastion>(client: Client, type: typeof Bastions | typeof ExtensionBastions, namespace: string, on: (ev: string, o: T) => void): void => {
      const run = (rv: string | undefined): void => {
        void client
          .watch(type as typeof Bastions, { namespace, ...(rv ? { resourceVersion: rv } : {}) }, (ev) => on(ev.type, ev.object as T), this.abort.signal)
          .catch(() => undefined)
          .finally(() => {
            if (!this.abort.signal.aborted) setTimeout(() => run(undefined), 100);
          });
      };
      run(undefined);
    };
    follow<Bastion>(this.garden, Bastions, this.gardenNamespace, (ev, b) => {
      const name = b.metadata?.name ?? "";
      if (ev === "DELETED" || !this.seen.has(name)) return;
      if (b.metadata.finalizers?.includes("gardener")) this.mark(name, "garden: finalizer gardener");
      const ready = b.status?.conditions?.find((c) => c.type === "BastionReady");
      if (ready?.status === "True" && b.status?.observedGeneration === b.metadata.generation) this.mark(name, "garden: Ready");
    });
    follow<ExtensionBastion>(this.seed, ExtensionBastions, this.seedNamespace, (ev, b) => {
      const name = b.metadata?.name ?? "";
      if (ev === "DELETED" || !this.seen.has(name)) return;
      this.mark(name, "seed: extension created");
      if (b.metadata.annotations?.["gardener.cloud/operation"] === undefined) this.mark(name, "seed: operation picked up");
      if (b.metadata.finalizers?.includes("extensions.gardener.cloud/bastion")) this.mark(name, "seed: finalizer");
      const state = b.status?.lastOperation?.state;
      if (state === "Processing") this.mark(name, "seed: Processing");
      if (b.status?.ingress) this.mark(name, "seed: ingress written");
      if (state === "Succeeded") this.mark(name, "seed: Succeeded");
    });
  }

  stop(): void {
    this.abort.abort();
  }
}

/**
 * The breakdown table over the traced bastions: per milestone, the median time since `sent` and the
 * median step from the previous milestone present (per bastion), and how many bastions had it.
 */
export function breakdown(traces: Partial<Record<Milestone, number>>[]): (string | number)[][] {
  const rows: (string | number)[][] = [["milestone", "since create p50 ms", "step p50 ms", "step p90 ms", "n"]];
  const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
  for (const k of MILESTONES) {
    const since: number[] = [];
    const steps: number[] = [];
    for (const t of traces) {
      const at = t[k];
      const sent = t.sent;
      if (at === undefined || sent === undefined) continue;
      since.push(at - sent);
      const i = MILESTONES.indexOf(k);
      const prev = MILESTONES.slice(0, i).reverse().find((p) => t[p] !== undefined);
      if (prev !== undefined) steps.push(at - t[prev]!);
    }
    if (since.length === 0) continue;
    rows.push([k, median(since), steps.length ? median(steps) : NaN, steps.length ? percentile([...steps].sort((a, b) => a - b), 90) : NaN, since.length]);
  }
  return rows;
}
