// The watch cache's event history: a ring of the most recent events, for watches that resume from
// a recent revision.
import type { StorageEvent } from "../interface.ts";

export class EventRing {
  private buf: (StorageEvent | undefined)[];
  private head = 0;
  private size = 0;
  /** Every event with a revision above this one is held. */
  private from = 0;

  constructor(private readonly capacity: number) {
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
    this.from = revision;
  }

  /** Events at or below revision can no longer be served (they were compacted in storage). */
  forgetThrough(revision: number): void {
    this.from = Math.max(this.from, revision);
  }

  push(ev: StorageEvent): void {
    if (this.size === this.capacity) {
      const evicted = this.buf[this.head] as StorageEvent;
      this.buf[this.head] = undefined;
      this.head = (this.head + 1) % this.capacity;
      this.size--;
      this.from = Math.max(this.from, evicted.kv.modRevision);
    }
    this.buf[(this.head + this.size) % this.capacity] = ev;
    this.size++;
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
      if (ev.kv.key.startsWith(prefix)) out.push(ev);
    }
    return out;
  }

  private at(i: number): StorageEvent {
    return this.buf[(this.head + i) % this.capacity] as StorageEvent;
  }
}
