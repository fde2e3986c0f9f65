// List, then watch from the list's resourceVersion, feeding an in-memory cache; on a watch
// error (410 Expired, storage failure) relist and rewatch with exponential backoff. The RBAC
// authorizer and the aggregation controller keep their views of the RBAC objects with it.
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import type { StatusError } from "../../apimachinery/errors.ts";
import { type Clock, type Timer, realClock } from "../../utils/clock.ts";
import type { InternalClient } from "../registry/client.ts";
import type { WatchHandle } from "../registry/generic/interface.ts";
import type { GroupResource } from "../registry/types.ts";

export interface ReflectorHandler<T extends KubeObject> {
  /** The complete current set (after each list). */
  replace(items: T[]): void;
  upsert(obj: T): void;
  remove(obj: T): void;
}

export interface ReflectorOptions {
  clock?: Clock;
  /** Called for every failure that leads to a relist (for logging). */
  onError?: (err: unknown) => void;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

export class Reflector<T extends KubeObject> {
  private handle: WatchHandle | undefined;
  private timer: Timer | undefined;
  private generation = 0;
  private stopped = false;
  private backoffMs: number;
  private readonly clock: Clock;

  constructor(
    private readonly client: InternalClient,
    private readonly gr: GroupResource,
    private readonly handler: ReflectorHandler<T>,
    private readonly opts: ReflectorOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
    this.backoffMs = opts.initialBackoffMs ?? 500;
  }

  /** Resolves after the first list was applied and the watch is running; rejects if that fails. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.listAndWatch();
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    this.timer?.cancel();
    this.timer = undefined;
    this.handle?.stop();
    this.handle = undefined;
  }

  private async listAndWatch(): Promise<void> {
    const gen = ++this.generation;
    this.handle?.stop();
    this.handle = undefined;
    const list = await this.client.list(this.gr, undefined);
    if (gen !== this.generation) return;
    this.handler.replace(list.items as T[]);
    const handle = await this.client.watch(
      this.gr,
      undefined,
      (ev) => {
        if (gen !== this.generation) return;
        if (ev.type === "ADDED" || ev.type === "MODIFIED") this.handler.upsert(ev.object as T);
        else if (ev.type === "DELETED") this.handler.remove(ev.object as T);
        else if (ev.type === "ERROR") this.failed(gen, ev.object);
      },
      (err: StatusError) => this.failed(gen, err),
      { resourceVersion: list.metadata.resourceVersion },
    );
    if (gen !== this.generation) {
      handle.stop();
      return;
    }
    this.handle = handle;
    this.backoffMs = this.opts.initialBackoffMs ?? 500;
  }

  private failed(gen: number, err: unknown): void {
    if (gen !== this.generation || this.stopped) return;
    this.generation++;
    this.handle?.stop();
    this.handle = undefined;
    this.opts.onError?.(err);
    this.scheduleRelist();
  }

  private scheduleRelist(): void {
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.opts.maxBackoffMs ?? 30_000);
    this.timer = this.clock.setTimer(delay, () => {
      this.timer = undefined;
      if (this.stopped) return;
      this.listAndWatch().catch((err: unknown) => {
        this.opts.onError?.(err);
        if (!this.stopped) this.scheduleRelist();
      });
    });
  }
}
