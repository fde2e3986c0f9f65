// The watch tally of `--workers N` (docs/high-availability.md#workers): watches and backlog bytes
// per user and in total, in memory every worker thread shares, so that --max-watches-per-user and
// the watch buffer bounds hold for the server as one, as in one process. A small lock (an Atomics
// word) guards the table; every change is a few reads and writes under it.
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

/** Users with open watches the table holds by default (about 1.5 MiB). */
export const DEFAULT_TALLY_USERS = 1 << 16;

// Layout: int32 [0] the lock, [1] occupied entries; float64 [1] the total bytes; then one entry of
// 24 bytes per slot: int32 hash hi, hash lo (both 0: free), watches, (unused); float64 bytes.
const HEADER = 16;
const SLOT = 24;

export class SharedTally implements WatchTally {
  private readonly i32: Int32Array;
  private readonly f64: Float64Array;
  private readonly mask: number;

  private constructor(private readonly data: SharedTallyData) {
    this.i32 = new Int32Array(data.buffer);
    this.f64 = new Float64Array(data.buffer);
    const slots = (data.buffer.byteLength - HEADER) / SLOT;
    if (!Number.isInteger(slots) || slots < 2 || (slots & (slots - 1)) !== 0) throw new Error("shared tally: bad buffer size");
    this.mask = slots - 1;
  }

  /** A new, empty tally for `users` users at once (a power of two). */
  static create(users = DEFAULT_TALLY_USERS): SharedTally {
    return new SharedTally({ buffer: new SharedArrayBuffer(HEADER + users * SLOT), key: randomBytes(32) });
  }

  /** The tally another thread created. */
  static attach(data: SharedTallyData): SharedTally {
    return new SharedTally(data);
  }

  /** What to pass to a worker thread. */
  get shared(): SharedTallyData {
    return this.data;
  }

  watches(user: string): number {
    const k = this.keyOf(user);
    return this.locked(() => {
      const s = this.find(k);
      return s < 0 ? 0 : this.i32[this.base(s) + 2]!;
    });
  }

  open(user: string, max: number): TallyKey | undefined {
    const k = this.keyOf(user);
    const opened = this.locked(() => {
      let s = this.find(k);
      if (s < 0) {
        // Keep a free slot: probing ends at one.
        if (this.i32[1]! >= this.mask) return "full";
        s = this.claim(k);
      }
      const w = this.base(s) + 2;
      if (this.i32[w]! >= max) return "limit";
      this.i32[w]!++;
      return "ok";
    });
    if (opened === "full") throw newTooManyRequests("Too many requests, please try again later: too many users have watches open", 1);
    return opened === "ok" ? k : undefined;
  }

  close(key: TallyKey, bytes: number): void {
    const k = key as SharedKey;
    this.locked(() => {
      this.f64[1]! -= bytes;
      const s = this.find(k);
      if (s < 0) return;
      const b = this.base(s);
      this.f64[(b + 4) / 2]! -= bytes;
      if (--this.i32[b + 2]! <= 0) this.remove(s);
    });
  }

  addBytes(key: TallyKey, delta: number): void {
    const k = key as SharedKey;
    this.locked(() => {
      this.f64[1]! += delta;
      const s = this.find(k);
      if (s >= 0) this.f64[(this.base(s) + 4) / 2]! += delta;
    });
  }

  userBytes(key: TallyKey): number {
    return this.locked(() => {
      const s = this.find(key as SharedKey);
      return s < 0 ? 0 : this.f64[(this.base(s) + 4) / 2]!;
    });
  }

  totalBytes(): number {
    return this.locked(() => this.f64[1]!);
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
    return (HEADER + s * SLOT) / 4;
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

  private claim(k: SharedKey): number {
    let s = this.home(k.lo);
    while (this.i32[this.base(s)] !== 0 || this.i32[this.base(s) + 1] !== 0) s = (s + 1) & this.mask;
    const b = this.base(s);
    this.i32[b] = k.hi;
    this.i32[b + 1] = k.lo;
    this.i32[b + 2] = 0;
    this.f64[(b + 4) / 2] = 0;
    this.i32[1]!++;
    return s;
  }

  /** Frees slot s, moving later entries of its probe run back (no tombstones). */
  private remove(s: number): void {
    let hole = s;
    for (let j = (s + 1) & this.mask; ; j = (j + 1) & this.mask) {
      const b = this.base(j);
      if (this.i32[b] === 0 && this.i32[b + 1] === 0) break;
      const home = this.home(this.i32[b + 1]!);
      // The entry at j may fill the hole when its home is not cyclically within (hole, j].
      const between = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (between) continue;
      const h = this.base(hole);
      for (let w = 0; w < SLOT / 4; w++) this.i32[h + w] = this.i32[b + w]!;
      hole = j;
    }
    const h = this.base(hole);
    for (let w = 0; w < SLOT / 4; w++) this.i32[h + w] = 0;
    this.i32[1]!--;
  }

  private locked<T>(f: () => T): T {
    while (Atomics.compareExchange(this.i32, 0, 0, 1) !== 0) Atomics.wait(this.i32, 0, 1, 1);
    try {
      return f();
    } finally {
      Atomics.store(this.i32, 0, 0);
      Atomics.notify(this.i32, 0, 1);
    }
  }
}
