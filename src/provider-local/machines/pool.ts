// The pool of held bastion machines (docs/adr/0015-bastion-machine-pool.md): a few machines booted in advance,
// without networks, up to their user-data (host/'s `hold`), so that creating a bastion only claims one and
// gives it what is the bastion's own: name, addresses, tables, user-data, sshd. Every bastion machine is
// created through the pool; with none held (or size 0) it is started the usual way.
// The pool refills one machine at a time, only while no creation runs (up to the machine's readiness, when the
// caller waits for it in whileBusy), and its machines wait at a lower
// priority: it never competes with a bastion being made. A held machine is an ordinary recorded machine
// (owner `pool/bastion`): the pool's stop removes them; after a crash, a restarted pool takes over those still
// held and removes the rest, and `down` removes all of them.
import { randomBytes } from "node:crypto";
import type { Host, HostKeyType, MachineInfo, MachineSpec } from "../../host/index.ts";

export const POOL_OWNER = "pool/bastion";
/** Names of held machines: `pool.bastion-<hex>` (no shoot namespace is called "pool"). */
export const POOL_NAME_PREFIX = "pool.bastion-";

interface PoolLogger {
  info(o: object, msg: string): void;
  warn(o: object, msg: string): void;
}

export interface BastionPoolOptions {
  host: Host;
  /** Held machines to keep (0: none; every bastion machine is then started the usual way). */
  size: number;
  /** The host keys the held machines make (a claim uses them). */
  hostKeyTypes: readonly HostKeyType[];
  /** Run as root in each held machine before it is held (what every claim's user-data would do first). */
  prepare?: string;
  logger?: PoolLogger;
  /** A new held machine's name (default POOL_NAME_PREFIX and random hex). */
  newName?: () => string;
  holdTimeoutMs?: number;
}

/** The pool's machines on the host (from its records; also another process's, e.g. a benchmark's) and whether each is held. */
export async function poolMachines(host: Host): Promise<{ name: string; held: boolean }[]> {
  const records = await host.listRecords((id) => id.startsWith(`machine/${POOL_NAME_PREFIX}`));
  const out: { name: string; held: boolean }[] = [];
  for (const r of records) {
    if (r.kind !== "machine" || r.owner !== POOL_OWNER) continue;
    out.push({ name: r.name, held: (await host.machineStatus(r.name, { sockets: false }))?.held === true });
  }
  return out;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class BastionPool {
  private readonly available: string[] = [];
  private creations = 0;
  private idleWaiters: (() => void)[] = [];
  private filling: Promise<void> | undefined;
  private stopped = false;
  private readonly newName: () => string;

  constructor(private readonly o: BastionPoolOptions) {
    this.newName = o.newName ?? (() => `${POOL_NAME_PREFIX}${randomBytes(6).toString("hex")}`);
  }

  /** The held machines ready to be claimed. */
  held(): readonly string[] {
    return [...this.available];
  }

  /**
   * Takes over the held machines of an earlier run that are still held, removes the pool's other machines
   * (booting, failed, or claimed by a claimer that died: host/ hands those over to their claimer), then fills
   * the pool in the background.
   */
  async start(): Promise<void> {
    for (const m of await poolMachines(this.o.host)) {
      if (m.held && this.available.length < this.o.size) this.available.push(m.name);
      else await this.o.host.stopMachine(m.name);
    }
    this.kick();
  }

  /**
   * Stops refilling, waits for a held machine being booted and removes the held machines: a stopped
   * provider-local leaves only its bastions' machines. (After a crash a restarted pool takes them over, and
   * `down` removes them like any machine.)
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.filling;
    await Promise.all(this.available.splice(0).map((name) => this.o.host.stopMachine(name).catch(() => undefined)));
  }

  /** Resolves when the pool is not filling (tests). */
  async settled(): Promise<void> {
    while (this.filling) await this.filling;
  }

  /**
   * Runs `work` (a creation and the wait for its readiness) as a creation: the pool does not begin a refill
   * while it runs. A claim returns before its machine is ready; booting a held machine beside ten bastions
   * that are still coming up would take the CPU they wait for.
   */
  async whileBusy<T>(work: () => Promise<T>): Promise<T> {
    this.creations++;
    try {
      return await work();
    } finally {
      this.creations--;
      if (this.creations === 0) for (const w of this.idleWaiters.splice(0)) w();
      this.kick();
    }
  }

  /**
   * Creates a machine: claims a held one when there is one, otherwise (or when the claim fails) starts it.
   * The pool refills only while no creation runs.
   */
  createMachine(spec: MachineSpec): Promise<MachineInfo> {
    const { host } = this.o;
    return this.whileBusy(async () => {
      const slot = this.available.shift();
      if (slot !== undefined) {
        try {
          return await host.claimMachine(slot, spec);
        } catch (err) {
          this.o.logger?.warn({ machine: spec.name, held: slot, err: messageOf(err) }, "could not claim a held machine; starting one");
          // The claimer's record names the held machine's directory: it goes first, then what the held one left.
          await host.stopMachine(spec.name);
          await host.stopMachine(slot);
        }
      }
      return await host.startMachine(spec);
    });
  }

  private kick(): void {
    if (this.stopped || this.filling || this.available.length >= this.o.size) return;
    this.filling = this.fill().finally(() => {
      this.filling = undefined;
    });
  }

  private async whenNoCreations(): Promise<void> {
    while (this.creations > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** One held machine at a time, each after every creation in progress; a failed boot stops until the next creation. */
  private async fill(): Promise<void> {
    const { host } = this.o;
    while (!this.stopped && this.available.length < this.o.size) {
      await this.whenNoCreations();
      if (this.stopped) return;
      const name = this.newName();
      try {
        await host.startMachine({
          name,
          owner: POOL_OWNER,
          networks: [],
          hold: true,
          ...(this.o.prepare !== undefined ? { prepare: this.o.prepare } : {}),
          sshd: { hostKeyTypes: this.o.hostKeyTypes },
          readyTimeoutMs: this.o.holdTimeoutMs ?? 60_000,
        });
        this.available.push(name);
      } catch (err) {
        this.o.logger?.warn({ machine: name, err: messageOf(err) }, "could not boot a held machine; the pool refills after the next creation");
        await host.stopMachine(name).catch(() => undefined);
        return;
      }
    }
  }
}
