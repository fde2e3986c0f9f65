// Creates that arrive together go to etcd together (group commit): one batch is in flight at a
// time, and the creates that arrive meanwhile go out as the next one, as one Txn ("if none of these
// keys exists, put them all, else read them"). etcd commits a batch as one revision (one raft entry,
// one fsync) and the API server opens one HTTP/2 stream for it; a create that finds nothing in
// flight goes out at the end of its event-loop turn. A batch whose precondition fails (some key
// exists) answers KeyExists to the creates of existing keys and sends the others again first in the
// next batch, so each failed round settles at least one create.
// Keys are unique within a batch (etcd refuses a Txn that puts one key twice): a second create of a
// key waits for the next batch, where it meets the first one's key. docs/high-availability.md.

export interface CreateRequest {
  key: string;
  value: string;
}

/** What a batch did for one of its creates: done (its key-value or its error) or to be sent again. */
export type CreateOutcome<T> = { done: T } | { error: unknown } | "again";

/** Sends one batch as one transaction; outcomes in the order of the batch. */
export type SendBatch<T> = (batch: CreateRequest[]) => Promise<CreateOutcome<T>[]>;

export interface BatchLimits {
  /** Creates per batch (etcd's --max-txn-ops, 128 by default, bounds compares and puts alike). */
  maxCreates: number;
  /** Value bytes per batch (etcd's --max-request-bytes, 1.5 MiB by default); a larger create goes alone. */
  maxBytes: number;
}

export const DEFAULT_BATCH_LIMITS: BatchLimits = { maxCreates: 64, maxBytes: 512 * 1024 };

interface Pending<T> extends CreateRequest {
  resolve(v: T): void;
  reject(err: unknown): void;
  /** Sent alone from now on (a batch failed without telling which key existed). */
  alone: boolean;
}

export class CreateBatcher<T> {
  private pending: Pending<T>[] = [];
  private scheduled = false;
  /** A batch was sent and is not answered yet. */
  private inFlight = false;

  constructor(
    private readonly send: SendBatch<T>,
    private readonly limits: BatchLimits = DEFAULT_BATCH_LIMITS,
    /** When the batch of this turn goes out (setImmediate: after the turn's other callbacks). */
    private readonly later: (fn: () => void) => void = setImmediate,
  ) {}

  create(key: string, value: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ key, value, resolve, reject, alone: false });
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

  /** Sends the next batch: the oldest pending creates that fit the limits, one per key. */
  private flush(): void {
    const batch: Pending<T>[] = [];
    const left: Pending<T>[] = [];
    const keys = new Set<string>();
    let bytes = 0;
    for (const p of this.pending) {
      const fits =
        !keys.has(p.key) &&
        batch.length < this.limits.maxCreates &&
        (batch.length === 0 || (!p.alone && !batch[0]!.alone && bytes + p.value.length <= this.limits.maxBytes));
      if (!fits) {
        left.push(p);
        continue;
      }
      batch.push(p);
      keys.add(p.key);
      bytes += p.value.length;
    }
    this.pending = left;
    if (batch.length > 0) void this.run(batch);
  }

  private async run(batch: Pending<T>[]): Promise<void> {
    this.inFlight = true;
    let outcomes: CreateOutcome<T>[] | undefined;
    try {
      outcomes = await this.send(batch);
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
    this.inFlight = false;
    const again: Pending<T>[] = [];
    if (outcomes) {
      batch.forEach((p, i) => {
        const o = outcomes[i] ?? "again";
        if (o === "again" && batch.length === 1) p.reject(new Error(`create ${p.key}: refused without a reason`));
        else if (o === "again") again.push(p);
        else if ("done" in o) p.resolve(o.done);
        else p.reject(o.error);
      });
    }
    // Nothing settled: the batch cannot say which key was in the way; its creates go alone.
    if (again.length > 0 && again.length === batch.length) for (const p of again) p.alone = true;
    this.pending.unshift(...again);
    if (this.pending.length > 0) this.schedule();
  }
}
