// A watch through the InternalClient that restarts (list + watch again) after it fails, e.g. with
// 410 Expired. Every restart delivers ADDED for all existing objects again, so handlers must be
// level-based (they queue keys), and only read the objects: they are shared with the store's other watchers,
// so a change is decoded once, not once per in-process controller.
import type { WatchEvent } from "../../apis/meta/v1/types.ts";
import type { Clock, Timer } from "../../utils/clock.ts";
import type { InternalClient } from "../registry/client.ts";
import type { WatchHandle } from "../registry/generic/interface.ts";
import type { GroupResource } from "../registry/types.ts";

/** Called around each (re)listing: before the watch opens, and once it delivered the existing objects. */
export interface ListingHooks {
  listing(): void;
  listed(): void;
}

export class Rewatcher {
  private handle: WatchHandle | undefined;
  private timer: Timer | undefined;
  private stopped = false;

  constructor(
    private readonly client: InternalClient,
    private readonly gr: GroupResource,
    private readonly clock: Clock,
    private readonly onEvent: (event: WatchEvent) => void,
    private readonly onError: (err: unknown) => void = () => undefined,
    private readonly retryMs = 1000,
    private readonly hooks?: ListingHooks,
  ) {}

  /** Opens the watch; resolves once the existing objects were delivered. */
  async start(): Promise<void> {
    this.stopped = false;
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
    try {
      this.hooks?.listing();
      const handle = await this.client.watch(
        this.gr,
        undefined,
        (event) => {
          if (!this.stopped && !failed) this.onEvent(event);
        },
        (err) => {
          failed = true;
          this.onError(err);
          this.retry();
        },
        { readOnly: true },
      );
      if (this.stopped || failed) {
        handle.stop();
        return;
      }
      this.handle = handle;
      this.hooks?.listed();
    } catch (err) {
      this.onError(err);
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
