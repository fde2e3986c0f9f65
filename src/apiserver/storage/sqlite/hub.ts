// In-process fan-out of committed events to SQLiteStorage's watchers.
//
// Delivery is synchronous but never re-entrant: a callback that writes (and so publishes) while
// another delivery runs only queues its event, so every watcher sees events in revision order.
import { guard } from "../callbacks.ts";
import type { StorageError, StorageEvent } from "../interface.ts";

export interface Subscriber {
  /** Normalized prefix. */
  readonly prefix: string;
  /** Events at or below this revision were delivered (or skipped); later ones are due. */
  last: number;
  /** False while history is replayed; live events are then read from the log instead. */
  live: boolean;
  stopped: boolean;
  readonly onEvents: (events: StorageEvent[]) => void;
  readonly onError: (err: StorageError) => void;
}

interface Delivery {
  events: StorageEvent[];
  /** Replay batches go to one subscriber; live events to every matching live one. */
  only?: Subscriber;
}

export class Hub {
  readonly subscribers = new Set<Subscriber>();
  private queue: Delivery[] = [];
  private running = false;

  add(sub: Subscriber): void {
    this.subscribers.add(sub);
  }

  remove(sub: Subscriber): void {
    sub.stopped = true;
    this.subscribers.delete(sub);
  }

  /** Live events of one commit. */
  publish(events: StorageEvent[]): void {
    this.enqueue({ events });
  }

  /** A replay batch for one subscriber, ordered with respect to live deliveries. */
  replay(sub: Subscriber, events: StorageEvent[]): void {
    this.enqueue({ events, only: sub });
  }

  fail(sub: Subscriber, err: StorageError): void {
    if (sub.stopped) return;
    this.remove(sub);
    guard(() => sub.onError(err));
  }

  private enqueue(d: Delivery): void {
    this.queue.push(d);
    if (this.running) return;
    this.running = true;
    try {
      for (let next = this.queue.shift(); next; next = this.queue.shift()) this.deliver(next);
    } finally {
      this.running = false;
    }
  }

  private deliver(d: Delivery): void {
    if (d.only) {
      if (!d.only.stopped) guard(() => d.only?.onEvents(d.events));
      return;
    }
    for (const sub of this.subscribers) {
      if (!sub.live || sub.stopped) continue;
      const mine = d.events.filter((e) => e.kv.modRevision > sub.last && e.kv.key.startsWith(sub.prefix));
      const last = d.events[d.events.length - 1];
      if (last) sub.last = Math.max(sub.last, last.kv.modRevision);
      if (mine.length > 0) guard(() => sub.onEvents(mine));
    }
  }
}
