// An in-memory InternalClient for unit tests of the auth modules: objects per group/resource,
// one global resourceVersion counter, watches that replay from a resourceVersion and then go
// live (events are delivered synchronously), and a hook to break watches (to test relisting).
import { randomUUID } from "node:crypto";
import type { KubeList, KubeObject, WatchEvent } from "../../../apis/meta/v1/types.ts";
import { type StatusError, newAlreadyExists, newNotFound, newResourceExpired } from "../../../apimachinery/errors.ts";
import type { InternalClient } from "../../registry/client.ts";
import type { ListOptions, PatchType, WatchHandle } from "../../registry/generic/interface.ts";
import type { GroupResource } from "../../registry/types.ts";
import { metaTime } from "../../../utils/time.ts";
import { recordOrEmpty } from "../../../utils/guards.ts";

interface Watcher {
  gr: string;
  namespace: string | undefined;
  onEvent: (e: WatchEvent) => void;
  onError: (err: StatusError) => void;
  stopped: boolean;
}

const grKey = (gr: GroupResource) => `${gr.group}/${gr.resource}`;
const objKey = (ns: string | undefined, name: string) => `${ns ?? ""}/${name}`;
const clone = <T>(v: T): T => structuredClone(v);

export class FakeClient implements InternalClient {
  private rv = 0;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly log: { rv: number; gr: string; event: WatchEvent }[] = [];
  private readonly watchers = new Set<Watcher>();
  /** Number of calls per method, for tests that assert caching or fallbacks. */
  readonly calls: Record<string, number> = {};

  private bucket(gr: GroupResource): Map<string, KubeObject> {
    let b = this.objects.get(grKey(gr));
    if (!b) this.objects.set(grKey(gr), (b = new Map()));
    return b;
  }

  private count(m: string): void {
    this.calls[m] = (this.calls[m] ?? 0) + 1;
  }

  get(gr: GroupResource, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    this.count("get");
    const o = this.bucket(gr).get(objKey(namespace, name));
    return Promise.resolve(o ? clone(o) : undefined);
  }

  list(gr: GroupResource, namespace: string | undefined): Promise<KubeList> {
    this.count("list");
    const items = [...this.bucket(gr).values()].filter((o) => namespace === undefined || o.metadata.namespace === namespace);
    return Promise.resolve({ metadata: { resourceVersion: String(this.rv) }, items: items.map(clone) });
  }

  watch(
    gr: GroupResource,
    namespace: string | undefined,
    onEvent: (event: WatchEvent) => void,
    onError: (err: StatusError) => void,
    options?: ListOptions & { resourceVersion?: string },
  ): Promise<WatchHandle> {
    this.count("watch");
    const w: Watcher = { gr: grKey(gr), namespace, onEvent, onError, stopped: false };
    const from = options?.resourceVersion;
    if (from === undefined || from === "" || from === "0") {
      for (const o of this.bucket(gr).values()) {
        if (namespace === undefined || o.metadata.namespace === namespace) onEvent({ type: "ADDED", object: clone(o) });
      }
    } else {
      for (const entry of this.log) {
        if (entry.rv > Number(from) && entry.gr === w.gr && this.inNamespace(w, entry.event.object)) onEvent(clone(entry.event));
      }
    }
    this.watchers.add(w);
    return Promise.resolve({ stop: () => ((w.stopped = true), this.watchers.delete(w)) });
  }

  create(gr: GroupResource, obj: KubeObject): Promise<KubeObject> {
    this.count("create");
    const name = obj.metadata.name ?? "";
    const key = objKey(obj.metadata.namespace, name);
    if (this.bucket(gr).has(key)) return Promise.reject(newAlreadyExists(gr, name));
    const stored = clone(obj);
    stored.metadata.uid ??= randomUUID();
    stored.metadata.creationTimestamp ??= metaTime(Date.now());
    return Promise.resolve(this.write(gr, "ADDED", stored));
  }

  update(gr: GroupResource, obj: KubeObject): Promise<KubeObject> {
    this.count("update");
    const name = obj.metadata.name ?? "";
    const old = this.bucket(gr).get(objKey(obj.metadata.namespace, name));
    if (!old) return Promise.reject(newNotFound(gr, name));
    const stored = clone(obj);
    stored.metadata.uid = old.metadata.uid;
    stored.metadata.creationTimestamp = old.metadata.creationTimestamp;
    return Promise.resolve(this.write(gr, "MODIFIED", stored));
  }

  /** Only merge patches (enough for these modules). */
  patch(gr: GroupResource, namespace: string | undefined, name: string, type: PatchType, patch: unknown): Promise<KubeObject> {
    this.count("patch");
    if (type !== "merge") return Promise.reject(new Error(`fake client: unsupported patch type ${type}`));
    const old = this.bucket(gr).get(objKey(namespace, name));
    if (!old) return Promise.reject(newNotFound(gr, name));
    return Promise.resolve(this.write(gr, "MODIFIED", mergePatch(clone(old), patch) as KubeObject));
  }

  delete(gr: GroupResource, namespace: string | undefined, name: string): Promise<void> {
    this.count("delete");
    const key = objKey(namespace, name);
    const old = this.bucket(gr).get(key);
    if (!old) return Promise.resolve();
    this.bucket(gr).delete(key);
    this.rv++;
    const obj = clone(old);
    obj.metadata.resourceVersion = String(this.rv);
    this.emit(gr, { type: "DELETED", object: obj });
    return Promise.resolve();
  }

  /** Ends every watch on gr with an error (as a compaction or a storage failure would). */
  breakWatches(gr: GroupResource, err: StatusError = newResourceExpired("too old resource version")): void {
    for (const w of [...this.watchers]) {
      if (w.gr !== grKey(gr)) continue;
      this.watchers.delete(w);
      w.onError(err);
    }
  }

  /** Live watches on gr. */
  watchCount(gr: GroupResource): number {
    return [...this.watchers].filter((w) => w.gr === grKey(gr)).length;
  }

  private write(gr: GroupResource, type: "ADDED" | "MODIFIED", obj: KubeObject): KubeObject {
    this.rv++;
    obj.metadata.resourceVersion = String(this.rv);
    this.bucket(gr).set(objKey(obj.metadata.namespace, obj.metadata.name ?? ""), obj);
    this.emit(gr, { type, object: clone(obj) });
    return clone(obj);
  }

  private emit(gr: GroupResource, event: WatchEvent): void {
    this.log.push({ rv: this.rv, gr: grKey(gr), event: clone(event) });
    for (const w of [...this.watchers]) {
      if (!w.stopped && w.gr === grKey(gr) && this.inNamespace(w, event.object)) w.onEvent(clone(event));
    }
  }

  private inNamespace(w: Watcher, obj: KubeObject): boolean {
    return w.namespace === undefined || obj.metadata.namespace === w.namespace;
  }
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = { ...recordOrEmpty(target) };
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}
