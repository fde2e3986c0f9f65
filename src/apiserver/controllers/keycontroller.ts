// The shape of the server's own controllers: watches (which restart after failures) queue keys, and
// one KeyQueue runs the controller's sync for each key. A subclass states its watches and its sync.
import type { WatchEvent } from "../../apis/meta/v1/types.ts";
import type { Clock } from "../../utils/clock.ts";
import type { InternalClient } from "../registry/client.ts";
import type { GroupResource } from "../registry/types.ts";
import { KeyQueue, type SyncResult } from "./queue.ts";
import { Rewatcher } from "./rewatch.ts";

export interface KeyControllerOptions {
  client: InternalClient;
  clock: Clock;
  onError?: (err: unknown, key?: string) => void;
}

export abstract class KeyController<O extends KeyControllerOptions = KeyControllerOptions> {
  protected readonly queue: KeyQueue;
  private readonly watches: Rewatcher[] = [];

  constructor(protected readonly opts: O) {
    this.queue = new KeyQueue(opts.clock, (key) => this.sync(key), (key, err) => opts.onError?.(err, key));
  }

  /**
   * Watches gr from start() on; onEvent queues keys. A restarted watch delivers ADDED for every
   * existing object again, so what onEvent does must be level-based.
   */
  protected watch(gr: GroupResource, onEvent: (event: WatchEvent) => void): void {
    this.watches.push(new Rewatcher(this.opts.client, gr, this.opts.clock, onEvent, this.opts.onError));
  }

  /** Opens the watches in order; resolves once each delivered the existing objects. */
  async start(): Promise<void> {
    for (const w of this.watches) await w.start();
  }

  stop(): void {
    for (const w of this.watches) w.stop();
    this.queue.stop();
  }

  /** Resolves when no key is queued or being processed (tests). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** One pass over one key: undefined when done, or the milliseconds after which to look again. */
  abstract sync(key: string): Promise<SyncResult>;
}
