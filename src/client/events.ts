// A small event recorder (client-go's record.EventRecorder, reduced): core/v1 Events about an
// object, written in the background so a controller never waits for or fails on them. Repeats of
// the same event (object, type, reason, message) within 10 minutes bump count and lastTimestamp
// of the Event already written instead of creating another (client-go's correlator); each object
// gets at most 25 events in a burst, then one per 5 minutes (its spam filter). Both caches are
// bounded (4096 entries, least recently used dropped first).
import type { Event, ObjectReference } from "../apis/core/v1/types.ts";
import type { KubeObject } from "../apis/meta/v1/types.ts";
import type { Clock } from "../utils/clock.ts";
import type { Client } from "./client.ts";
import { resourceType } from "./resource.ts";
import { metaTime } from "../utils/time.ts";

export const Events = resourceType<Event>({ group: "", version: "v1", kind: "Event", plural: "events", namespaced: true });

export type EventType = "Normal" | "Warning";

export interface EventRecorder {
  /** Records an event about obj (which needs apiVersion, kind, name and uid). Never throws. */
  event(obj: KubeObject, type: EventType, reason: string, message: string): void;
}

export interface EventRecorderOptions {
  clock: Clock;
  /** source.component and reportingComponent, e.g. "gardenlet". */
  component: string;
  /** source.host and reportingInstance (default: the component). */
  instance?: string;
  onError?: (err: unknown) => void;
}

const MAX_ENTRIES = 4096;
const AGGREGATE_MS = 10 * 60_000;
const BURST = 25;
const REFILL_MS = 5 * 60_000;
const MAX_MESSAGE = 1024;

class Lru<V> {
  private readonly map = new Map<string, V>();
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > MAX_ENTRIES) this.map.delete(this.map.keys().next().value as string);
  }
}

export function newEventRecorder(client: Client, o: EventRecorderOptions): EventRecorder {
  const seen = new Lru<{ name: string; namespace: string; count: number; firstMs: number; lastMs: number }>();
  const buckets = new Lru<{ tokens: number; atMs: number }>();
  let chain: Promise<void> = Promise.resolve();
  const instance = o.instance ?? o.component;

  const allowed = (key: string, now: number): boolean => {
    const b = buckets.get(key) ?? { tokens: BURST, atMs: now };
    const refill = Math.floor((now - b.atMs) / REFILL_MS);
    if (refill > 0) {
      b.tokens = Math.min(BURST, b.tokens + refill);
      b.atMs += refill * REFILL_MS;
    }
    const ok = b.tokens > 0;
    if (ok) b.tokens--;
    buckets.set(key, b);
    return ok;
  };

  const write = async (obj: KubeObject, type: EventType, reason: string, message: string, now: number): Promise<void> => {
    const meta = obj.metadata;
    const namespace = meta.namespace || "default";
    const involved: ObjectReference = { apiVersion: obj.apiVersion, kind: obj.kind, name: meta.name, uid: meta.uid, resourceVersion: meta.resourceVersion };
    if (meta.namespace) involved.namespace = meta.namespace;
    const key = JSON.stringify([meta.uid, type, reason, message]);
    const prev = seen.get(key);
    if (prev && now - prev.lastMs < AGGREGATE_MS) {
      prev.count++;
      prev.lastMs = now;
      seen.set(key, prev);
      try {
        await client.patch(Events, { namespace: prev.namespace, name: prev.name }, { type: "merge", body: { count: prev.count, lastTimestamp: metaTime(now) } });
        return;
      } catch {
        // Gone (expired, deleted): write a new one below.
      }
    }
    const name = `${meta.name}.${(now * 1_000_000 + Math.floor(Math.random() * 1_000_000)).toString(16)}`;
    const event: Event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name, namespace },
      involvedObject: involved,
      reason,
      message: message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 3)}...` : message,
      type,
      source: { component: o.component },
      firstTimestamp: metaTime(now),
      lastTimestamp: metaTime(now),
      count: 1,
      reportingComponent: o.component,
      reportingInstance: instance,
    };
    await client.create(Events, event);
    seen.set(key, { name, namespace, count: 1, firstMs: now, lastMs: now });
  };

  return {
    event(obj, type, reason, message) {
      const now = o.clock.nowMs();
      if (!obj.metadata.name || !allowed(obj.metadata.uid ?? `${obj.kind}/${obj.metadata.namespace}/${obj.metadata.name}`, now)) return;
      // One at a time, in order: a repeat finds the Event its predecessor wrote.
      chain = chain.then(() => write(obj, type, reason, message, now)).catch((err: unknown) => o.onError?.(err));
    },
  };
}
