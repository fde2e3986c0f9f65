// The watch cache's event history: a ring of the most recent events, for watches that resume from
// a recent revision. Bounded in events and in bytes (large objects written often would otherwise
// pin gigabytes). Replays are copies, so what a replay decodes or encodes (memoized per storage
// value) is garbage once its watchers are done, instead of living as long as the history.
import type { KeyValue, StorageEvent } from "../interface.ts";

/** What an event pins in memory, roughly: its values and keys (the previous value counted apart). */
export function eventBytes(ev: StorageEvent): number {
  return ev.kv.key.length + ev.kv.value.length + (ev.prev ? ev.prev.value.length : 0) + 64;
}

const copyKv = (kv: KeyValue): KeyValue => ({ ...kv });
const copyEvent = (ev: StorageEvent): StorageEvent =>
  ev.type === "put" ? { type: "put", kv: copyKv(ev.kv), ...(ev.prev ? { prev: copyKv(ev.prev) } : {}) } : { type: "delete", kv: copyKv(ev.kv), prev: copyKv(ev.prev) };

export class EventRing {
  private buf: (StorageEvent | undefined)[];
  private head = 0;
  private size = 0;
  /** Every event with a revision above this one is held. */
  private from = 0;
  private bytes = 0;

  constructor(
    private readonly capacity: number,
    private readonly maxBytes = Infinity,
  ) {
    if (!(capacity >= 1)) throw new Error(`history size must be at least 1, got ${capacity}`);
    this.buf = new Array<StorageEvent | undefined>(capacity);
  }

  /** The oldest revision a watch can resume after. */
  get oldest(): number {
    return this.from;
  }

  /** Forgets all events; the history starts (empty) at revision. */
  reset(revision: number): void {
    this.buf = new Array<StorageEvent | undefined>(this.capacity);
    this.head = 0;
    this.size = 0;
    this.bytes = 0;
    this.from = revision;
  }

  /** Bytes the held events pin (as eventBytes counts them). */
  get heldBytes(): number {
    return this.bytes;
  }

  /** Events held. */
  get length(): number {
    return this.size;
  }

  /** Events at or below revision can no longer be served (they were compacted in storage). */
  forgetThrough(revision: number): void {
    this.from = Math.max(this.from, revision);
  }

  /** Adds the newest event (a copy), dropping the oldest while over the event or byte bound (the newest always stays). */
  push(ev: StorageEvent): void {
    if (this.size === this.capacity) this.dropOldest();
    const held = copyEvent(ev);
    this.buf[(this.head + this.size) % this.capacity] = held;
    this.size++;
    this.bytes += eventBytes(held);
    while (this.bytes > this.maxBytes && this.size > 1) this.dropOldest();
  }

  private dropOldest(): void {
    const evicted = this.buf[this.head] as StorageEvent;
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) % this.capacity;
    this.size--;
    this.bytes -= eventBytes(evicted);
    this.from = Math.max(this.from, evicted.kv.modRevision);
  }

  /** Events after revision (which must be >= oldest) whose key starts with prefix, in order. */
  since(revision: number, prefix: string): StorageEvent[] {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).kv.modRevision <= revision) lo = mid + 1;
      else hi = mid;
    }
    const out: StorageEvent[] = [];
    for (let i = lo; i < this.size; i++) {
      const ev = this.at(i);
      if (ev.kv.key.startsWith(prefix)) out.push(copyEvent(ev));
    }
    return out;
  }

  private at(i: number): StorageEvent {
    return this.buf[(this.head + i) % this.capacity] as StorageEvent;
  }
}
