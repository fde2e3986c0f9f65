// Event handlers turn a changed object into the requests a controller should process
// (controller-runtime's handler package): the object itself, its controlling owner, or whatever
// a mapper says (e.g. all Bastions of a Shoot).
import type { Logger } from "pino";
import type { KubeObject } from "../apis/meta/v1/types.ts";
import type { ObjectKey } from "../client/resource.ts";
import type { Request } from "./reconcile.ts";

export type Enqueue = (req: Request) => void;

export interface EventHandler<T extends KubeObject = KubeObject> {
  create(obj: T, enqueue: Enqueue): void;
  update(oldObj: T, newObj: T, enqueue: Enqueue): void;
  delete(obj: T, enqueue: Enqueue): void;
}

function requestFor(obj: KubeObject): Request {
  const req: Request = { name: obj.metadata.name ?? "" };
  if (obj.metadata.namespace) req.namespace = obj.metadata.namespace;
  return req;
}

/** Enqueues the object's own key (the handler behind `for`). */
export function enqueueForObject<T extends KubeObject = KubeObject>(): EventHandler<T> {
  const one = (obj: T, enqueue: Enqueue): void => enqueue(requestFor(obj));
  return { create: one, update: (_o, n, e) => one(n, e), delete: one };
}

export function groupOfApiVersion(apiVersion: string): string {
  const i = apiVersion.indexOf("/");
  return i < 0 ? "" : apiVersion.slice(0, i);
}

/** The keys of an object's owners of the given group and kind (only the controller owner by default). */
export function ownerRequests(obj: KubeObject, owner: { group: string; kind: string; namespaced: boolean }, onlyController = true): Request[] {
  const out: Request[] = [];
  for (const ref of obj.metadata.ownerReferences ?? []) {
    if (onlyController && !ref.controller) continue;
    if (ref.kind !== owner.kind || groupOfApiVersion(ref.apiVersion) !== owner.group) continue;
    const req: Request = { name: ref.name };
    // Owners live in the dependent's namespace, or are cluster-scoped.
    if (owner.namespaced && obj.metadata.namespace) req.namespace = obj.metadata.namespace;
    out.push(req);
  }
  return out;
}

/** Enqueues the owner (from ownerReferences) of a changed dependent; old and new owners on update. */
export function enqueueForOwner<T extends KubeObject = KubeObject>(
  owner: { group: string; kind: string; namespaced: boolean },
  opts: { onlyController?: boolean } = {},
): EventHandler<T> {
  const only = opts.onlyController ?? true;
  const some = (obj: T, enqueue: Enqueue): void => {
    for (const r of ownerRequests(obj, owner, only)) enqueue(r);
  };
  return { create: some, update: (o, n, e) => (some(o, e), some(n, e)), delete: some };
}

export type MapFunc<T extends KubeObject = KubeObject> = (obj: T) => ObjectKey[] | Promise<ObjectKey[]>;

/** Enqueues whatever the mapper returns for the object (old and new object on update). */
export function enqueueFromMapFunc<T extends KubeObject = KubeObject>(mapper: MapFunc<T>, log?: Logger): EventHandler<T> {
  const some = (obj: T, enqueue: Enqueue): void => {
    const fail = (err: unknown): void => log?.error({ err, object: obj.metadata.name }, "mapper failed");
    try {
      const out = mapper(obj);
      if (Array.isArray(out)) for (const r of out) enqueue(r);
      else void out.then((reqs) => reqs.forEach(enqueue), fail);
    } catch (err) {
      fail(err);
    }
  };
  return { create: some, update: (o, n, e) => (some(o, e), some(n, e)), delete: some };
}
