// An informer keeps a Store in step with the API server (client-go's reflector + shared
// informer): list, then watch from the list's resourceVersion, carrying the last seen
// resourceVersion across reconnects. A 410 (Expired/Gone) relists; every other failure (refused
// connection, broken stream, bad event, 5xx, a stream that ends at once) reconnects after an
// exponential backoff on the clock. It never gives up until stopped.
import { pino, type Logger } from "pino";
import type { KubeList, KubeObject, WatchEvent } from "../../apis/meta/v1/types.ts";
import { isExpired } from "../../apimachinery/errors.ts";
import { type Clock, realClock } from "../../utils/clock.ts";
import type { InformerMetrics } from "../metrics.ts";
import { type IndexFunc, Store, objectKey } from "./store.ts";

/** Where an informer gets its data; the client-backed one is in listwatch.ts. */
export interface ListerWatcher<T extends KubeObject> {
  list(signal: AbortSignal): Promise<KubeList<T>>;
  /** Streams events after resourceVersion; resolves on a clean end, rejects on any failure (StatusError for 410). */
  watch(resourceVersion: string, onEvent: (ev: WatchEvent<T>) => void, signal: AbortSignal): Promise<void>;
}

/** Handlers run synchronously, in order, for every change; they must not mutate the objects. */
export interface InformerHandler<T extends KubeObject> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export interface InformerBackoff {
  initialMs: number;
  maxMs: number;
}

export interface InformerOptions {
  /** For logs and metrics, e.g. "configmaps". */
  name?: string;
  clock?: Clock;
  logger?: Logger;
  /** Reconnect backoff; default 500 ms doubling to 30 s. */
  backoff?: InformerBackoff;
  metrics?: InformerMetrics;
}

/** A watch that lasted this long before ending cleanly counts as healthy even without events. */
const healthyWatchMs = 10_000;

export class Informer<T extends KubeObject> {
  readonly store = new Store<T>();
  readonly name: string;
  private readonly handlers = new Set<InformerHandler<T>>();
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly backoff: InformerBackoff;
  private readonly abort = new AbortController();
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private running: Promise<void> | undefined;
  private rv = "";

  constructor(
    private readonly lw: ListerWatcher<T>,
    private readonly opts: InformerOptions = {},
  ) {
    this.name = opts.name ?? "informer";
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? pino({ level: "silent" })).child({ informer: this.name });
    this.backoff = opts.backoff ?? { initialMs: 500, maxMs: 30_000 };
  }

  /** Registers a handler; objects already in the store are delivered to it as adds at once. */
  addEventHandler(h: InformerHandler<T>): () => void {
    this.handlers.add(h);
    if (h.onAdd) for (const obj of this.store.list()) this.call(() => h.onAdd!(obj));
    return () => this.handlers.delete(h);
  }

  addIndexer(name: string, fn: IndexFunc<T>): void {
    this.store.addIndexer(name, fn);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** The resourceVersion the next watch starts from. */
  lastResourceVersion(): string {
    return this.rv;
  }

  /** Resolves once the first list has been stored (or when signal/stop aborts the wait). */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced || signal?.aborted || this.abort.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        signal?.removeEventListener("abort", done);
        this.abort.signal.removeEventListener("abort", done);
        resolve();
      };
      this.syncWaiters.push(done);
      signal?.addEventListener("abort", done, { once: true });
      this.abort.signal.addEventListener("abort", done, { once: true });
    });
  }

  isRunning(): boolean {
    return this.running !== undefined && !this.abort.signal.aborted;
  }

  start(): void {
    if (this.running || this.abort.signal.aborted) return;
    this.running = this.run(this.abort.signal);
  }

  async stop(): Promise<void> {
    this.abort.abort(new Error(`informer ${this.name} stopped`));
    await this.running;
  }

  private async run(signal: AbortSignal): Promise<void> {
    let needList = true;
    let failures = 0;
    while (!signal.aborted) {
      let delivered = 0;
      let listed = false;
      const started = this.clock.nowMs();
      try {
        if (needList) {
          listed = true;
          const list = await this.lw.list(signal);
          this.replace(list.items);
          this.rv = list.metadata?.resourceVersion ?? "";
          needList = false;
          this.opts.metrics?.relisted();
          this.markSynced();
        }
        await this.lw.watch(
          this.rv,
          (ev) => {
            delivered++;
            this.apply(ev);
          },
          signal,
        );
        if (signal.aborted) return;
        // A stream that ends at once with nothing in it must not become a busy loop.
        if (delivered > 0 || this.clock.nowMs() - started >= healthyWatchMs) failures = 0;
        else failures++;
        this.log.debug({ resourceVersion: this.rv, events: delivered }, "watch ended; watching again");
      } catch (err) {
        if (signal.aborted) return;
        if (delivered > 0) failures = 0;
        // 410 on the watch: our resourceVersion is gone, relist now. A 410 on the list itself (an
        // expired continue token) or on the watch of a list just taken backs off like any other
        // failure, so a server that keeps answering 410 cannot drive a busy loop.
        if (isExpired(err) && !needList) {
          this.log.info({ resourceVersion: this.rv, err }, "resourceVersion expired (410); relisting");
          needList = true;
          if (!listed || delivered > 0) continue;
        }
        failures++;
        this.log.warn({ err, resourceVersion: this.rv, needList, failures }, "list/watch failed; retrying with backoff");
      }
      this.opts.metrics?.rewatched();
      if (failures > 0) await this.pause(failures, signal);
    }
  }

  private async pause(failures: number, signal: AbortSignal): Promise<void> {
    const ms = Math.min(this.backoff.maxMs, this.backoff.initialMs * Math.pow(2, failures - 1));
    try {
      await this.clock.sleep(ms, signal);
    } catch {
      // aborted: the loop condition ends the run
    }
  }

  private markSynced(): void {
    if (this.synced) return;
    this.synced = true;
    for (const w of this.syncWaiters.splice(0)) w();
  }

  /** Makes the store equal to a fresh list, emitting deletes, adds and updates for the differences. */
  private replace(items: T[]): void {
    const seen = new Set<string>();
    for (const obj of items) {
      const key = objectKey(obj);
      seen.add(key);
      const old = this.store.get(key);
      if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) continue;
      this.store.set(key, obj);
      if (old) this.dispatch((h) => h.onUpdate?.(old, obj));
      else this.dispatch((h) => h.onAdd?.(obj));
    }
    const gone = [...this.store.keys()].filter((k) => !seen.has(k));
    for (const key of gone) {
      const old = this.store.delete(key)!;
      this.dispatch((h) => h.onDelete?.(old));
    }
  }

  private apply(ev: WatchEvent<T>): void {
    const obj = ev.object;
    const rv = obj.metadata?.resourceVersion;
    if (ev.type === "BOOKMARK") {
      if (rv) this.rv = rv;
      return;
    }
    const key = objectKey(obj);
    if (ev.type === "DELETED") {
      const old = this.store.delete(key);
      if (old) this.dispatch((h) => h.onDelete?.(obj));
    } else {
      const old = this.store.set(key, obj);
      if (old) this.dispatch((h) => h.onUpdate?.(old, obj));
      else this.dispatch((h) => h.onAdd?.(obj));
    }
    if (rv) this.rv = rv;
  }

  private dispatch(fn: (h: InformerHandler<T>) => void): void {
    for (const h of this.handlers) this.call(() => fn(h));
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error({ err }, "event handler threw");
    }
  }
}
