// The watch tally of `--workers N` (docs/high-availability.md#workers): watches and backlog bytes
// per user and in total, in memory every worker thread shares, so that --max-watches-per-user and
// the watch buffer bounds hold for the server as one, as in one process. A lock word (Atomics)
// guards the table; every change is a few reads and writes under it.
//
// Each worker counts in a column of its own, so that when a worker exits (or crashes, perhaps
// holding the lock) the primary drops its column, takes the lock over and rebuilds the table:
// the watches that died with the worker stop counting.
//
// Users are found by a keyed hash of their name (HMAC-SHA-256 with a key of the process, the first
// 8 bytes): a user cannot choose a name that lands on another user's entry. The table is an
// open-addressing hash table with linear probing; an entry goes when its user's last watch ends.
import { createHmac, randomBytes } from "node:crypto";
import { newTooManyRequests } from "../../../apimachinery/errors.ts";
import type { TallyKey, WatchTally } from "../../endpoints/watch-tally.ts";

/** What a worker needs to attach to the primary's tally (passed in workerData). */
export interface SharedTallyData {
  buffer: SharedArrayBuffer;
  key: Uint8Array;
}

interface SharedKey extends TallyKey {
  hi: number;
  lo: number;
}

/** Users with open watches the table holds by default. */
export const DEFAULT_TALLY_USERS = 1 << 14;

// Layout (N workers): int32 [0] the lock (0, or the holder's id: worker index + 1, the primary
// N + 1), [1] occupied entries, [2] N; from byte 16 N float64 totals (bytes per worker); then the
// slots: int32 hash hi, hash lo (both 0: free), N int32 watches (padded to 8 bytes), N float64 bytes.
const HEAD = 16;

function layout(workers: number) {
  const watchBytes = Math.ceil((4 * workers) / 8) * 8;
  return { slots: HEAD + 8 * workers, slot: 8 + watchBytes + 8 * workers, watches: 8, bytes: 8 + watchBytes };
}

export class SharedTally implements WatchTally {
  private readonly i32: Int32Array;
  private readonly f64: Float64Array;
  private readonly mask: number;
  private readonly n: number;
  private readonly l: ReturnType<typeof layout>;
  /** The lock id of this attachment. */
  private readonly me: number;

  /** `column`: the worker this attachment counts for (undefined: the primary, which only forgets). */
  private constructor(
    private readonly data: SharedTallyData,
    private readonly column: number | undefined,
  ) {
    this.i32 = new Int32Array(data.buffer);
    this.f64 = new Float64Array(data.buffer);
    this.n = this.i32[2]!;
    this.l = layout(this.n);
    const slots = (data.buffer.byteLength - this.l.slots) / this.l.slot;
    if (!Number.isInteger(slots) || slots < 2 || (slots & (slots - 1)) !== 0) throw new Error("shared tally: bad buffer size");
    if (column !== undefined && (column < 0 || column >= this.n)) throw new Error(`shared tally: no worker ${column}`);
    this.mask = slots - 1;
    this.me = column === undefined ? this.n + 1 : column + 1;
  }

  /** A new, empty tally for `workers` workers and `users` users at once (a power of two); the primary's attachment. */
  static create(workers: number, users = DEFAULT_TALLY_USERS): SharedTally {
    const l = layout(workers);
    const buffer = new SharedArrayBuffer(l.slots + users * l.slot);
    new Int32Array(buffer)[2] = workers;
    return new SharedTally({ buffer, key: randomBytes(32) }, undefined);
  }

  /** Worker `index`'s attachment to the tally the primary created. */
  static attach(data: SharedTallyData, index: number): SharedTally {
    return new SharedTally(data, index);
  }

  /** What to pass to a worker thread. */
  get shared(): SharedTallyData {
    return this.data;
  }

  watches(user: string): number {
    const k = this.keyOf(user);
    return this.locked(() => this.sumWatches(this.find(k)));
  }

  open(user: string, max: number): TallyKey | undefined {
    const k = this.keyOf(user);
    const col = this.ownColumn();
    const opened = this.locked(() => {
      let s = this.find(k);
      if (s < 0) {
        // Keep a free slot: probing ends at one.
        if (this.i32[1]! >= this.mask) return "full";
        s = this.claim(k);
      }
      if (this.sumWatches(s) >= max) return "limit";
      this.i32[this.watchIndex(s, col)]!++;
      return "ok";
    });
    if (opened === "full") throw newTooManyRequests("Too many requests, please try again later: too many users have watches open", 1);
    return opened === "ok" ? k : undefined;
  }

  close(key: TallyKey, bytes: number): void {
    const col = this.ownColumn();
    this.locked(() => {
      this.f64[HEAD / 8 + col]! -= bytes;
      const s = this.find(key as SharedKey);
      if (s < 0) return;
      this.f64[this.bytesIndex(s, col)]! -= bytes;
      this.i32[this.watchIndex(s, col)]!--;
      if (this.sumWatches(s) <= 0) this.remove(s);
    });
  }

  addBytes(key: TallyKey, delta: number): void {
    const col = this.ownColumn();
    this.locked(() => {
      this.f64[HEAD / 8 + col]! += delta;
      const s = this.find(key as SharedKey);
      if (s >= 0) this.f64[this.bytesIndex(s, col)]! += delta;
    });
  }

  userBytes(key: TallyKey): number {
    return this.locked(() => {
      const s = this.find(key as SharedKey);
      let sum = 0;
      if (s >= 0) for (let c = 0; c < this.n; c++) sum += this.f64[this.bytesIndex(s, c)]!;
      return sum;
    });
  }

  totalBytes(): number {
    return this.locked(() => {
      let sum = 0;
      for (let c = 0; c < this.n; c++) sum += this.f64[HEAD / 8 + c]!;
      return sum;
    });
  }

  /**
   * Worker `index` exited: its watches and bytes stop counting. The lock is taken over if the
   * worker held it, and the table rebuilt from what the other workers count (an operation the
   * worker did not finish leaves nothing behind).
   */
  forget(index: number): void {
    const dead = index + 1;
    for (;;) {
      const held = Atomics.compareExchange(this.i32, 0, 0, this.me);
      if (held === 0 || (held === dead && Atomics.compareExchange(this.i32, 0, dead, this.me) === dead)) break;
      Atomics.wait(this.i32, 0, held, 1);
    }
    try {
      this.f64[HEAD / 8 + index] = 0;
      const entries = new Map<string, { k: SharedKey; words: Int32Array }>();
      for (let s = 0; s <= this.mask; s++) {
        const b = this.base(s);
        if (this.i32[b] === 0 && this.i32[b + 1] === 0) continue;
        this.i32[this.watchIndex(s, index)] = 0;
        this.f64[this.bytesIndex(s, index)] = 0;
        const k = { user: "", hi: this.i32[b]!, lo: this.i32[b + 1]! };
        // A slot copied but not yet cleared by an interrupted removal appears twice: keep one.
        if (this.sumWatches(s) > 0) entries.set(`${k.hi}/${k.lo}`, { k, words: this.i32.slice(b, b + this.l.slot / 4) });
        this.i32.fill(0, b, b + this.l.slot / 4);
      }
      this.i32[1] = 0;
      for (const { k, words } of entries.values()) this.i32.set(words, this.base(this.claim(k)));
    } finally {
      Atomics.store(this.i32, 0, 0);
      Atomics.notify(this.i32, 0);
    }
  }

  private ownColumn(): number {
    if (this.column === undefined) throw new Error("shared tally: the primary's attachment does not count watches");
    return this.column;
  }

  private keyOf(user: string): SharedKey {
    const h = createHmac("sha256", this.data.key).update(user).digest();
    const hi = h.readInt32LE(0);
    // 0/0 marks a free slot.
    const lo = hi === 0 && h.readInt32LE(4) === 0 ? 1 : h.readInt32LE(4);
    return { user, hi, lo };
  }

  /** Index (in int32s) of slot s's first word. */
  private base(s: number): number {
    return (this.l.slots + s * this.l.slot) / 4;
  }

  private watchIndex(s: number, col: number): number {
    return this.base(s) + this.l.watches / 4 + col;
  }

  private bytesIndex(s: number, col: number): number {
    return (this.l.slots + s * this.l.slot + this.l.bytes) / 8 + col;
  }

  private sumWatches(s: number): number {
    if (s < 0) return 0;
    let sum = 0;
    for (let c = 0; c < this.n; c++) sum += this.i32[this.watchIndex(s, c)]!;
    return sum;
  }

  private home(lo: number): number {
    return lo & this.mask;
  }

  private find(k: SharedKey): number {
    for (let s = this.home(k.lo); ; s = (s + 1) & this.mask) {
      const b = this.base(s);
      const hi = this.i32[b]!;
      const lo = this.i32[b + 1]!;
      if (hi === k.hi && lo === k.lo) return s;
      if (hi === 0 && lo === 0) return -1;
    }
  }

  /** Takes a free slot for k (its counts zero). */
  private claim(k: SharedKey): number {
    let s = this.home(k.lo);
    while (this.i32[this.base(s)] !== 0 || this.i32[this.base(s) + 1] !== 0) s = (s + 1) & this.mask;
    const b = this.base(s);
    this.i32.fill(0, b, b + this.l.slot / 4);
    this.i32[b] = k.hi;
    this.i32[b + 1] = k.lo;
    this.i32[1]!++;
    return s;
  }

  /** Frees slot s, moving later entries of its probe run back (no tombstones). */
  private remove(s: number): void {
    const words = this.l.slot / 4;
    let hole = s;
    for (let j = (s + 1) & this.mask; ; j = (j + 1) & this.mask) {
      const b = this.base(j);
      if (this.i32[b] === 0 && this.i32[b + 1] === 0) break;
      const home = this.home(this.i32[b + 1]!);
      // The entry at j may fill the hole when its home is not cyclically within (hole, j].
      const between = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (between) continue;
      this.i32.copyWithin(this.base(hole), b, b + words);
      hole = j;
    }
    const h = this.base(hole);
    this.i32.fill(0, h, h + words);
    this.i32[1]!--;
  }

  private locked<T>(f: () => T): T {
    for (;;) {
      const held = Atomics.compareExchange(this.i32, 0, 0, this.me);
      if (held === 0) break;
      Atomics.wait(this.i32, 0, held, 1);
    }
    try {
      return f();
    } finally {
      Atomics.store(this.i32, 0, 0);
      Atomics.notify(this.i32, 0, 1);
    }
  }
}
