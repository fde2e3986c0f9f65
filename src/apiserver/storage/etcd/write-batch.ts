// Writes that arrive together go to etcd together (group commit): one batch is in flight at a
// time, and the writes that arrive meanwhile go out as the next one, as one Txn ("if every write's
// precondition holds, do them all, else read their keys"). etcd commits a batch as one revision
// (one raft entry, one fsync) and the API server opens one HTTP/2 stream for it; a write that finds
// nothing in flight goes out at the end of its event-loop turn. A refused batch settles the writes
// whose own preconditions failed (KeyExists, NotFound, Conflict, from the keys read) and sends the
// others again first in the next batch, so each refused round settles at least one write.
// Keys are unique within a batch (etcd refuses a Txn that writes one key twice): a second write of
// a key waits for the next batch. ADR 0018, docs/high-availability.md.

/** A write as the batcher sees it; the store that sends the batch knows the rest. */
export interface BatchedWrite {
  key: string;
  /** Value bytes, for the batch's byte limit. */
  bytes: number;
  /** Its share of the Txn's operations: the larger of its compares and its operations. */
  weight: number;
}

/** What a batch did for one of its writes: done (its result or its error) or to be sent again. */
export type WriteOutcome<T> = { done: T } | { error: unknown } | "again";

/** Sends one batch as one transaction; outcomes in the order of the batch. */
export type SendBatch<W, T> = (batch: W[]) => Promise<WriteOutcome<T>[]>;

export interface BatchLimits {
  /** Operations per batch (etcd's --max-txn-ops, 128 by default, bounds the compares and the operations each). */
  maxOps: number;
  /** Value bytes per batch (etcd's --max-request-bytes, 1.5 MiB by default); a larger write goes alone. */
  maxBytes: number;
}

export const DEFAULT_BATCH_LIMITS: BatchLimits = { maxOps: 128, maxBytes: 512 * 1024 };

interface Pending<W, T> {
  write: W;
  resolve(v: T): void;
  reject(err: unknown): void;
  /** Sent alone from now on (a batch was refused without saying which write was in the way). */
  alone: boolean;
}

export class WriteBatcher<W extends BatchedWrite, T> {
  private pending: Pending<W, T>[] = [];
  private scheduled = false;
  /** A batch was sent and is not answered yet. */
  private inFlight = false;

  constructor(
    private readonly send: SendBatch<W, T>,
    private readonly limits: BatchLimits = DEFAULT_BATCH_LIMITS,
    /** When the batch of this turn goes out (setImmediate: after the turn's other callbacks). */
    private readonly later: (fn: () => void) => void = setImmediate,
  ) {}

  submit(write: W): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ write, resolve, reject, alone: false });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight) return;
    this.scheduled = true;
    this.later(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** Sends the next batch: the oldest pending writes that fit the limits, one per key. */
  private flush(): void {
    const batch: Pending<W, T>[] = [];
    const left: Pending<W, T>[] = [];
    const keys = new Set<string>();
    let bytes = 0;
    let ops = 0;
    for (const p of this.pending) {
      const w = p.write;
      const fits =
        batch.length === 0 ||
        (!keys.has(w.key) && !p.alone && !batch[0]!.alone && ops + w.weight <= this.limits.maxOps && bytes + w.bytes <= this.limits.maxBytes);
      if (!fits) {
        left.push(p);
        continue;
      }
      batch.push(p);
      keys.add(w.key);
      bytes += w.bytes;
      ops += w.weight;
    }
    this.pending = left;
    if (batch.length > 0) void this.run(batch);
  }

  private async run(batch: Pending<W, T>[]): Promise<void> {
    this.inFlight = true;
    let outcomes: WriteOutcome<T>[] | undefined;
    try {
      outcomes = await this.send(batch.map((p) => p.write));
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
    this.inFlight = false;
    const again: Pending<W, T>[] = [];
    if (outcomes) {
      batch.forEach((p, i) => {
        const o = outcomes[i] ?? "again";
        if (o === "again" && batch.length === 1) p.reject(new Error(`write of ${p.write.key}: refused without a reason`));
        else if (o === "again") again.push(p);
        else if ("done" in o) p.resolve(o.done);
        else p.reject(o.error);
      });
    }
    // Nothing settled: the batch cannot say which write was in the way; its writes go alone.
    if (again.length > 0 && again.length === batch.length) for (const p of again) p.alone = true;
    this.pending.unshift(...again);
    if (this.pending.length > 0) this.schedule();
  }
}
