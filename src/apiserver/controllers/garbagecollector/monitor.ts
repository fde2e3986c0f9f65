// One list + watch per resource for the garbage collector. After a failed watch it lists and
// watches again, and reports the objects that vanished meanwhile as deleted (an informer's relist).
import type { KubeObject, WatchEvent } from "../../../apis/meta/v1/types.ts";
import type { Clock } from "../../../utils/clock.ts";
import type { InternalClient } from "../../registry/client.ts";
import type { GroupResource } from "../../registry/types.ts";
import { Rewatcher } from "../rewatch.ts";

export interface MonitorHandlers {
  onUpsert(gr: GroupResource, obj: KubeObject): void;
  onDelete(gr: GroupResource, uid: string): void;
  /** The uids the graph holds for gr (compared with a fresh list). */
  known(gr: GroupResource): string[];
  onError(err: unknown): void;
}

export class Monitor {
  private readonly watch: Rewatcher;
  /** During a listing: the uids the graph held before it, and those the listing delivered. */
  private before = new Set<string>();
  private seen: Set<string> | undefined;

  constructor(
    readonly gr: GroupResource,
    client: InternalClient,
    clock: Clock,
    private readonly h: MonitorHandlers,
    retryMs = 1000,
  ) {
    // A failed open may mean the resource is gone (a CRD deleted meanwhile): the collector stops this monitor then.
    this.watch = new Rewatcher(client, gr, clock, (e) => this.onEvent(e), (err) => h.onError(err), retryMs, {
      listing: () => {
        this.before = new Set(h.known(gr));
        this.seen = new Set();
      },
      listed: () => {
        for (const uid of this.before) if (!this.seen?.has(uid)) h.onDelete(gr, uid);
        this.seen = undefined;
      },
    });
  }

  /** Resolves once the existing objects were delivered (or the first attempt failed and a retry is scheduled). */
  start(): Promise<void> {
    return this.watch.start();
  }

  stop(): void {
    this.watch.stop();
  }

  private onEvent(e: WatchEvent): void {
    if (e.type === "ADDED" || e.type === "MODIFIED") {
      if (e.object.metadata.uid) this.seen?.add(e.object.metadata.uid);
      this.h.onUpsert(this.gr, e.object);
    } else if (e.type === "DELETED" && e.object.metadata.uid) {
      this.h.onDelete(this.gr, e.object.metadata.uid);
    }
  }
}
