// Hands queued watch data to the connections, round-robin, one piece per watch and at most
// TURN_BYTES per event-loop turn. One change fanned out to a thousand watches (TLS encryption and
// a syscall per connection) then never holds up other requests for more than a turn.

/** A watch with data to write. */
export interface Pumpable {
  /** Writes one piece if the connection takes data; returns whether more could be written now. */
  writeOne(): { bytes: number; more: boolean };
}

const TURN_BYTES = 1024 * 1024;

export class WatchWriter {
  private ready: Pumpable[] = [];
  private head = 0;
  private readonly queued = new Set<Pumpable>();
  private armed = false;

  constructor(private readonly turnBytes = TURN_BYTES) {}

  /** Schedules w (once, however often it is woken before its turn). */
  wake(w: Pumpable): void {
    if (this.queued.has(w)) return;
    this.queued.add(w);
    this.ready.push(w);
    this.arm();
  }

  private arm(): void {
    if (this.armed) return;
    this.armed = true;
    setImmediate(() => this.turn());
  }

  private turn(): void {
    let budget = this.turnBytes;
    while (budget > 0 && this.head < this.ready.length) {
      const w = this.ready[this.head] as Pumpable;
      this.ready[this.head++] = IDLE;
      this.queued.delete(w);
      let r: { bytes: number; more: boolean };
      try {
        r = w.writeOne();
      } catch {
        continue;
      }
      budget -= r.bytes;
      if (r.more) this.wake(w);
    }
    this.armed = false;
    if (this.head >= this.ready.length) {
      this.ready = [];
      this.head = 0;
    } else {
      if (this.head > 1024) {
        this.ready = this.ready.slice(this.head);
        this.head = 0;
      }
      this.arm();
    }
  }
}

const IDLE: Pumpable = { writeOne: () => ({ bytes: 0, more: false }) };

/** The process's writer: the event loop it protects is the process's. */
export const watchWriter = new WatchWriter();
