// The shared cache: one informer per kind, shared by every controller of a manager, with
// indexes (namespace always; fields on request) and optional per-kind selectors, so that e.g.
// a gardenlet only lists and watches its own seed's Bastions.
import type { Logger } from "pino";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { newNotFound } from "../../apimachinery/errors.ts";
import { type LabelSelector, matches, parseLabelSelector } from "../../apimachinery/labels/selector.ts";
import type { Client } from "../../client/client.ts";
import { type ObjectKey, type ResourceType, keyString, typeId } from "../../client/resource.ts";
import { type Clock, realClock } from "../../utils/clock.ts";
import type { RuntimeMetrics } from "../metrics.ts";
import { Informer, type InformerBackoff } from "./informer.ts";
import { type ListWatchOptions, clientListerWatcher } from "./listwatch.ts";
import { type IndexFunc, fieldIndexFunc, namespaceIndex } from "./store.ts";

/** Per-kind restrictions of what the cache lists and watches. */
export type ByObject = Pick<ListWatchOptions, "namespace" | "labelSelector" | "fieldSelector">;

export interface CacheOptions {
  clock?: Clock;
  logger?: Logger;
  metrics?: RuntimeMetrics;
  backoff?: InformerBackoff;
  pageSize?: number;
}

export interface ListFilter {
  namespace?: string;
  labelSelector?: string | LabelSelector;
  /** Exact matches on fields indexed with indexField(), e.g. {"spec.seedName": "local"}. */
  fields?: Record<string, string>;
}

export function fieldIndexName(field: string): string {
  return `field:${field}`;
}

interface Entry {
  type: ResourceType;
  informer: Informer<KubeObject>;
}

export class Cache {
  private readonly entries = new Map<string, Entry>();
  private readonly byObject = new Map<string, ByObject>();
  private started = false;

  constructor(
    readonly client: Client,
    private readonly opts: CacheOptions = {},
  ) {}

  /** Restricts what the cache holds for a kind; must come before the kind's informer exists. */
  configure(type: ResourceType, restrict: ByObject): void {
    if (this.entries.has(typeId(type))) throw new Error(`cache: ${type.plural} is already being watched; configure it first`);
    this.byObject.set(typeId(type), restrict);
  }

  /** The shared informer for a kind, created on first use (and started if the cache runs). */
  informerFor<T extends KubeObject>(type: ResourceType<T>): Informer<T> {
    const id = typeId(type);
    let entry = this.entries.get(id);
    if (!entry) {
      const lw = clientListerWatcher<KubeObject>(this.client, type, { ...this.byObject.get(id), pageSize: this.opts.pageSize });
      const informer = new Informer<KubeObject>(lw, {
        name: type.group ? `${type.plural}.${type.group}` : type.plural,
        clock: this.opts.clock ?? realClock,
        logger: this.opts.logger,
        backoff: this.opts.backoff,
        metrics: this.opts.metrics?.forInformer(type.group ? `${type.plural}.${type.group}` : type.plural),
      });
      entry = { type, informer };
      this.entries.set(id, entry);
      if (this.started) informer.start();
    }
    return entry.informer as unknown as Informer<T>;
  }

  /** Indexes a kind by a dotted field path (controller-runtime's IndexField); list with `fields`. */
  indexField<T extends KubeObject>(type: ResourceType<T>, field: string, fn?: IndexFunc<T>): void {
    const informer = this.informerFor(type);
    const name = fieldIndexName(field);
    if (!informer.store.hasIndexer(name)) informer.addIndexer(name, fn ?? fieldIndexFunc<T>(field));
  }

  /** Reads one object from the cache (a copy), waiting for the kind to sync; NotFound like the API. */
  async get<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey, signal?: AbortSignal): Promise<T> {
    const informer = this.informerFor(type);
    await this.ready(informer, signal);
    const obj = informer.store.get(keyString(type.namespaced ? key : { name: key.name }));
    if (!obj) throw newNotFound({ group: type.group, resource: type.plural }, key.name);
    return structuredClone(obj);
  }

  /** Lists objects from the cache (copies), using indexes for namespace and fields. */
  async list<T extends KubeObject>(type: ResourceType<T>, filter: ListFilter = {}, signal?: AbortSignal): Promise<T[]> {
    const informer = this.informerFor(type);
    await this.ready(informer, signal);
    return this.listSynced(informer, filter).map((o) => structuredClone(o));
  }

  private listSynced<T extends KubeObject>(informer: Informer<T>, filter: ListFilter): T[] {
    const fieldEntries = Object.entries(filter.fields ?? {});
    let items: T[];
    if (fieldEntries.length > 0) {
      const [field, value] = fieldEntries[0]!;
      if (!informer.store.hasIndexer(fieldIndexName(field))) throw new Error(`cache: field ${field} of ${informer.name} is not indexed; call indexField first`);
      items = informer.store.byIndex(fieldIndexName(field), value);
      if (filter.namespace) items = items.filter((o) => o.metadata.namespace === filter.namespace);
    } else {
      items = filter.namespace ? informer.store.byIndex(namespaceIndex, filter.namespace) : informer.store.list();
    }
    for (const [field, value] of fieldEntries.slice(1)) {
      const fn = fieldIndexFunc<T>(field);
      items = items.filter((o) => fn(o).includes(value));
    }
    if (filter.labelSelector !== undefined) {
      const sel = typeof filter.labelSelector === "string" ? parseLabelSelector(filter.labelSelector) : filter.labelSelector;
      items = items.filter((o) => matches(sel, o.metadata.labels));
    }
    return items;
  }

  private async ready<T extends KubeObject>(informer: Informer<T>, signal?: AbortSignal): Promise<void> {
    if (informer.hasSynced()) return;
    if (!this.started) throw new Error(`cache: read of ${informer.name} before the cache was started`);
    await informer.waitForSync(signal);
    if (!informer.hasSynced()) throw new Error(`cache: ${informer.name} did not sync`);
  }

  start(): void {
    this.started = true;
    for (const e of this.entries.values()) e.informer.start();
  }

  hasSynced(): boolean {
    return [...this.entries.values()].every((e) => e.informer.hasSynced());
  }

  /** Resolves when every informer created so far has synced (or the signal aborts). */
  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.informer.waitForSync(signal)));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.informer.stop()));
  }
}
