// What a long-running observer (the landscape's supervisor, for status.json) knows about every machine of a
// state directory, kept up to date at a cost that does not grow with the number of machines that did not
// change (docs/machines.md#watching-a-thousand-machines): the records directory is watched (inotify), so
// only the records of machines that were created, changed or removed are read again; a booting machine is
// looked at until it is ready or failed; a ready one costs one read of its supervisor's /proc entry, and a
// few of them per refresh get a look at their control files (a failure reported after readiness). No look
// reads the machine's sockets (StatusOptions.sockets: about 10 ms each on this host). A slow resync of the
// directory's names covers events the watch missed.
import { watch, type FSWatcher } from "node:fs";
import { readdir } from "node:fs/promises";
import type { HostContext } from "./context.ts";
import { statusOf } from "./machine-status.ts";
import { isAlive } from "./procs.ts";
import { idOfFile, type MachineRecord } from "./records.ts";

/** "Held": a pool machine waiting for its claim (docs/adr/0015-bastion-machine-pool.md). */
export type MachineState = "Ready" | "Held" | "Booting" | "Failed" | "Stopped";

export interface MachineSummary {
  name: string;
  state: MachineState;
  /** Addresses with prefix length, one per interface. */
  addresses: string[];
}

export interface MachineSummariesOptions {
  /** Ready machines given a full look per refresh (default 16). */
  fullLooksPerRefresh?: number;
  /** Refreshes between resyncs of the records directory's names (default 30). */
  resyncEvery?: number;
}

interface Entry {
  record: MachineRecord;
  summary: MachineSummary;
}

const MACHINE_FILE = /^machine%2F(.+)\.json$/;

/** The machine a records file names ("machine%2Fb1.json" -> "b1"), if it is a machine's. */
function machineOfFile(file: string): string | undefined {
  const m = MACHINE_FILE.exec(file);
  if (!m) return undefined;
  const id = idOfFile(file);
  return id.startsWith("machine/") ? id.slice("machine/".length) : undefined;
}

export class MachineSummaries {
  private readonly entries = new Map<string, Entry>();
  private readonly dirty = new Set<string>();
  private watcher: FSWatcher | undefined;
  private refreshes = 0;
  private resyncDue = true;
  private cursor = 0;
  private closed = false;

  constructor(
    private readonly ctx: Pick<HostContext, "records">,
    private readonly o: MachineSummariesOptions = {},
  ) {}

  /** Every machine, by name. */
  list(): MachineSummary[] {
    return [...this.entries.values()].map((e) => e.summary).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Brings the summaries up to date; resolves true when any of them changed. */
  async refresh(): Promise<boolean> {
    if (this.closed) return false;
    this.ensureWatch();
    this.refreshes++;
    let changed = false;
    if (this.resyncDue || this.refreshes % (this.o.resyncEvery ?? 30) === 0) changed = (await this.resync()) || changed;
    const dirty = [...this.dirty];
    this.dirty.clear();
    for (const name of dirty) changed = (await this.reload(name)) || changed;
    changed = (await this.look()) || changed;
    return changed;
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    this.watcher = undefined;
  }

  /** Watches the records directory; until it exists (or after the watch failed), every refresh resyncs. */
  private ensureWatch(): void {
    if (this.watcher) return;
    try {
      const w = watch(this.ctx.records.dir, (_event, file) => {
        const name = typeof file === "string" ? machineOfFile(file) : undefined;
        if (name !== undefined) this.dirty.add(name);
      });
      w.on("error", () => {
        w.close();
        if (this.watcher === w) this.watcher = undefined;
        this.resyncDue = true;
      });
      this.watcher = w;
    } catch {
      this.resyncDue = true;
    }
  }

  /** Compares the directory's machine file names with what is known: reads the new ones, drops the gone ones. */
  private async resync(): Promise<boolean> {
    let files: string[];
    try {
      files = await readdir(this.ctx.records.dir);
    } catch {
      files = [];
    }
    // A resync only counts as done when a watch reports what happens after it.
    this.resyncDue = this.watcher === undefined;
    const present = new Set<string>();
    for (const f of files) {
      const name = machineOfFile(f);
      if (name !== undefined) present.add(name);
    }
    let changed = false;
    for (const name of this.entries.keys()) {
      if (!present.has(name)) {
        this.entries.delete(name);
        changed = true;
      }
    }
    for (const name of present) if (!this.entries.has(name)) this.dirty.add(name);
    return changed;
  }

  /** Reads one machine's record again (created, rewritten or removed) and looks at the machine. */
  private async reload(name: string): Promise<boolean> {
    const record = await this.ctx.records.get(`machine/${name}`).catch(() => undefined);
    if (record?.kind !== "machine") return this.entries.delete(name);
    const before = this.entries.get(name)?.summary;
    const entry: Entry = { record, summary: { name, state: "Booting", addresses: record.interfaces.map((i) => i.address) } };
    this.entries.set(name, entry);
    await this.fullLook(entry);
    return !sameSummary(before, entry.summary);
  }

  /**
   * Booting machines get a full look each refresh; ready and failed ones one /proc read (is the supervisor
   * still the one recorded?); `fullLooksPerRefresh` ready ones, in turn, a full look.
   */
  private async look(): Promise<boolean> {
    let changed = false;
    const all = [...this.entries.values()];
    const budget = Math.min(this.o.fullLooksPerRefresh ?? 16, all.length);
    const turn = new Set<Entry>();
    for (let i = 0; i < budget; i++) turn.add(all[(this.cursor + i) % all.length]!);
    this.cursor = all.length === 0 ? 0 : (this.cursor + budget) % all.length;
    for (const e of all) {
      const before = e.summary.state;
      if (e.summary.state === "Booting" || turn.has(e)) await this.fullLook(e);
      else if (e.summary.state !== "Stopped" && !(e.record.supervisor && isAlive(e.record.supervisor))) await this.fullLook(e);
      if (e.summary.state !== before) changed = true;
    }
    return changed;
  }

  private async fullLook(e: Entry): Promise<void> {
    try {
      const info = await statusOf(e.record, { sockets: false });
      // A record still "creating" is a machine whose supervisor is about to start.
      const booting = info.running || e.record.state === "creating";
      e.summary = { ...e.summary, state: info.failed ? "Failed" : info.ready ? "Ready" : info.held ? "Held" : booting ? "Booting" : "Stopped" };
    } catch {
      // Removed while looked at: the watch reports it.
    }
  }
}

function sameSummary(a: MachineSummary | undefined, b: MachineSummary): boolean {
  return a !== undefined && a.state === b.state && a.addresses.join() === b.addresses.join();
}
