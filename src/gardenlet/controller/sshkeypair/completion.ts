// Completing a rotation from the Node event that completes it (docs/maintenance-and-rotation.md#completion):
// a pass that leaves a rotation waiting for nodes records what it waits for (the rotation's
// lastInitiationTime, the Shoot's generation and every pool's desired checksum). A Node update is
// then checked against that record in the shoot's cache: while nodes are outstanding nothing
// happens (no pass per report), and the update that completes the set writes `lastCompletionTime`
// at once, after re-reading the Shoot to confirm it still waits for the same rotation. Anything
// else (no record, a changed Shoot, a failed write) falls back to a pass. The record stays valid
// while later passes run, as long as they compute the same desired checksums (`keepIf`), so the
// last report does not wait for a pass that happens to be running.
import type { Logger } from "pino";
import { rotationInProgress, sshKeypairRotation } from "../../../api/gardencore/rotation.ts";
import { isSSHAccessEnabled } from "../../../api/gardencore/shoot.ts";
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import type { Client } from "../../../client/client.ts";
import { Shoots } from "../../../client/garden.ts";
import { unlessNotFound } from "../../../client/helpers.ts";
import { type ObjectKey, keyString } from "../../../client/resource.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import type { Clock } from "../../../utils/clock.ts";
import { nodesState } from "./nodes.ts";
import type { PoolOSC } from "./oscsecrets.ts";
import { Nodes } from "./shootwatch.ts";
import { completeRotation } from "./status.ts";

/** What a waiting rotation waits for. */
export interface Waiting {
  initiation: string;
  generation: number | undefined;
  desired: readonly Pick<PoolOSC, "pool" | "secretName" | "checksum">[];
}

export interface CompletionDeps {
  gardenClient: Client;
  clock: Clock;
  /** A pass for the Shoot (the fallback). */
  enqueue: (key: ObjectKey) => void;
  /**
   * Reads the Shoot before the completion is written; default a live read. The gardenlet's cache saves
   * that round trip: a Shoot read stale fails the write (its resourceVersion) and a pass follows.
   */
  readShoot?: (key: ObjectKey, signal: AbortSignal) => Promise<Shoot | undefined>;
  logger?: Logger;
}

/** The Waiting record of a Shoot whose rotation is in progress, from the pass's desired OSCs. */
export function waitingFor(shoot: Shoot, desired: readonly PoolOSC[]): Waiting {
  return {
    initiation: sshKeypairRotation(shoot)?.lastInitiationTime ?? "",
    generation: shoot.metadata.generation,
    desired: desired.map(({ pool, secretName, checksum }) => ({ pool, secretName, checksum })),
  };
}

/** Whether `shoot` still waits for exactly the rotation `w` records. */
export function stillWaiting(shoot: Shoot | undefined, w: Waiting): shoot is Shoot {
  return (
    !!shoot &&
    !shoot.metadata.deletionTimestamp &&
    isSSHAccessEnabled(shoot) &&
    rotationInProgress(shoot) &&
    shoot.metadata.generation === w.generation &&
    sshKeypairRotation(shoot)?.lastInitiationTime === w.initiation
  );
}

/** Whether a record waits for exactly these desired OSCs. */
export function sameDesired(w: Waiting, desired: readonly Pick<PoolOSC, "pool" | "secretName" | "checksum">[]): boolean {
  const key = (d: readonly Pick<PoolOSC, "pool" | "secretName" | "checksum">[]): string => JSON.stringify(d.map(({ pool, secretName, checksum }) => [pool, secretName, checksum]).sort());
  return key(w.desired) === key(desired);
}

export class DirectCompletion {
  private readonly waiting = new Map<string, Waiting>();
  /** Direct completions in flight: all of them, and the latest per Shoot. */
  private readonly running = new Set<Promise<void>>();
  private readonly latest = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();

  constructor(private readonly d: CompletionDeps) {}

  /** Called by a pass: the rotation waits for `w` (or, undefined, for nothing). */
  set(key: ObjectKey, w: Waiting | undefined): void {
    if (w) this.waiting.set(keyString(key), w);
    else this.waiting.delete(keyString(key));
  }

  get(key: ObjectKey): Waiting | undefined {
    return this.waiting.get(keyString(key));
  }

  /** Drops the record unless `valid` holds for it (a pass computed what the nodes must report now). */
  keepIf(key: ObjectKey, valid: (w: Waiting) => boolean): void {
    const w = this.waiting.get(keyString(key));
    if (w && !valid(w)) this.waiting.delete(keyString(key));
  }

  /**
   * Drops the record and waits for a direct completion of the Shoot in flight; true when there was
   * one (the caller re-reads the Shoot instead of writing the completion a second time).
   */
  async take(key: ObjectKey): Promise<boolean> {
    this.waiting.delete(keyString(key));
    const p = this.latest.get(keyString(key));
    if (!p) return false;
    await p;
    return true;
  }

  /** A Node of the shoot changed in a way that matters (already in `cache`). */
  nodeChanged(key: ObjectKey, cache: Cache): void {
    const w = this.waiting.get(keyString(key));
    if (!w) return this.d.enqueue(key);
    const nodes = nodesState(cache.informerFor(Nodes).store.list(), w.desired as PoolOSC[]);
    if (nodes.upToDate !== nodes.total) return; // still waiting: a pass would only say so
    const id = keyString(key);
    this.waiting.delete(id);
    const p = this.complete(key, w).finally(() => {
      this.running.delete(p);
      if (this.latest.get(id) === p) this.latest.delete(id);
    });
    this.running.add(p);
    this.latest.set(id, p);
  }

  private async complete(key: ObjectKey, w: Waiting): Promise<void> {
    const signal = this.abort.signal;
    try {
      const shoot = await (this.d.readShoot ? this.d.readShoot(key, signal) : unlessNotFound(this.d.gardenClient.get(Shoots, key, { signal })));
      if (!stillWaiting(shoot, w)) return this.d.enqueue(key);
      const done = await completeRotation(this.d.gardenClient, shoot, this.d.clock.nowMs(), signal);
      this.d.logger?.info({ shoot: keyString(key), lastCompletionTime: sshKeypairRotation(done)?.lastCompletionTime }, "SSH key pair rotation completed by the last node's report");
    } catch (err) {
      if (signal.aborted) return;
      this.d.logger?.info({ err, shoot: keyString(key) }, "SSH key pair rotation: direct completion failed; a pass follows");
      this.d.enqueue(key);
    }
  }

  /** Resolves when the direct completions started so far are over. */
  async settled(): Promise<void> {
    await Promise.all([...this.running]);
  }

  /** Ends direct completions in flight (the controller stops). */
  async stop(): Promise<void> {
    this.abort.abort();
    this.waiting.clear();
    await Promise.all([...this.running]);
  }
}
