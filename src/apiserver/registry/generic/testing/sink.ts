// Test support: a WatchSink that records events, and a helper that waits (without fixed sleeps)
// until a condition holds.
import type { WatchEvent } from "../../../../apis/meta/v1/types.ts";
import type { StatusError } from "../../../../apimachinery/errors.ts";
import type { WatchSink } from "../interface.ts";

export class CollectingSink implements WatchSink {
  readonly events: WatchEvent[] = [];
  ended: { err: StatusError | undefined } | undefined;
  /** After this many events onEvent returns false (the client is "too slow"). */
  stopAfter = Infinity;

  onEvent(event: WatchEvent): boolean {
    this.events.push(event);
    return this.events.length < this.stopAfter;
  }

  onEnd(err?: StatusError): void {
    this.ended = { err };
  }

  /** "TYPE name" per event (BOOKMARK: "BOOKMARK <rv>"). */
  summary(): string[] {
    return this.events.map((e) => (e.type === "BOOKMARK" ? `BOOKMARK ${e.object.metadata.resourceVersion}` : `${e.type} ${e.object.metadata.name}`));
  }
}

/** Resolves once cond() is true; gives up after `turns` event-loop turns (about a second). */
export async function until(cond: () => boolean, what = "condition", turns = 1000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, i < 50 ? 0 : 1));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Lets pending callbacks run (to assert that nothing more arrives). */
export async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

/** until() for conditions that need to read (e.g. through a client). */
export async function untilAsync(cond: () => Promise<boolean>, what = "condition", turns = 1000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, i < 50 ? 0 : 1));
  }
  throw new Error(`timed out waiting for ${what}`);
}
