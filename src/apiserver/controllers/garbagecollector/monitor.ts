// One list + watch per resource for the garbage collector. After a failed watch it lists and
// watches again, and reports the objects that vanished meanwhile as deleted (an informer's relist).
import type { KubeObject, WatchEvent } from "../../../apis/meta/v1/types.ts";
import type { Clock, Timer } from "../../../utils/clock.ts";
import type { InternalClient } from "../../registry/client.ts";
import type { WatchHandle } from "../../registry/generic/interface.ts";
import type { GroupResource } from "../../registry/types.ts";

export interface MonitorHandlers {
  onUpsert(gr: GroupResource, obj: KubeObject): void;
  onDelete(gr: GroupResource, uid: string): void;
  /** The uids the graph holds for gr (compared with a fresh list). */
  known(gr: GroupResource): string[];
  onError(err: unknown): void;
}

export class Monitor {
  private handle: WatchHandle | undefined;
  private timer: Timer | undefined;
  private stopped = false;

  constructor(
    readonly gr: GroupResource,
    private readonly client: InternalClient,
    private readonly clock: Clock,
    private readonly h: MonitorHandlers,
    private readonly retryMs = 1000,
  ) {}

  /** Resolves once the existing objects were delivered (or the first attempt failed and a retry is scheduled). */
  async start(): Promise<void> {
    await this.open();
  }

  stop(): void {
    this.stopped = true;
    this.handle?.stop();
    this.handle = undefined;
    this.timer?.cancel();
  }

  private async open(): Promise<void> {
    if (this.stopped) return;
    let failed = false;
    const seen = new Set<string>();
    let listing = true;
    const onEvent = (e: WatchEvent): void => {
      if (this.stopped || failed) return;
      if (e.type === "ADDED" || e.type === "MODIFIED") {
        if (listing && e.object.metadata.uid) seen.add(e.object.metadata.uid);
        this.h.onUpsert(this.gr, e.object);
      } else if (e.type === "DELETED" && e.object.metadata.uid) {
        this.h.onDelete(this.gr, e.object.metadata.uid);
      }
    };
    try {
      const before = new Set(this.h.known(this.gr));
      const handle = await this.client.watch(this.gr, undefined, onEvent, (err) => {
        failed = true;
        this.h.onError(err);
        this.retry();
      });
      listing = false;
      if (this.stopped || failed) {
        handle.stop();
        return;
      }
      this.handle = handle;
      for (const uid of before) if (!seen.has(uid)) this.h.onDelete(this.gr, uid);
    } catch (err) {
      // The resource may be gone (a CRD deleted meanwhile): the collector stops this monitor then.
      this.h.onError(err);
      this.retry();
    }
  }

  private retry(): void {
    this.handle?.stop();
    this.handle = undefined;
    if (this.stopped) return;
    this.timer?.cancel();
    this.timer = this.clock.setTimer(this.retryMs, () => void this.open());
  }
}
