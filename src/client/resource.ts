// What the client needs to know about a kind to reach it over REST: group, version, plural and
// scope. A ResourceType is a plain structural descriptor, so descriptors declared elsewhere (for
// example next to the API types in src/apis/) fit without importing this module.
import type { KubeObject } from "../apis/meta/v1/types.ts";

export interface ResourceType<T extends KubeObject = KubeObject> {
  /** API group; "" for the core group. */
  group: string;
  version: string;
  kind: string;
  /** Lower-case plural resource name, as in the URL. */
  plural: string;
  namespaced: boolean;
  /** Type marker only; never set. Lets `client.get(ConfigMaps, ...)` return a ConfigMap. */
  readonly __object?: T;
}

/** Declares a typed descriptor: `const ConfigMaps = resourceType<ConfigMap>({...})`. */
export function resourceType<T extends KubeObject>(d: Omit<ResourceType<T>, "__object">): ResourceType<T> {
  return { group: d.group, version: d.version, kind: d.kind, plural: d.plural, namespaced: d.namespaced };
}

/** Namespace and name of an object; namespace is ignored for cluster-scoped kinds. */
export interface ObjectKey {
  namespace?: string;
  name: string;
}

export function apiVersionOf(type: ResourceType): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

/** A stable identity for a kind, used as the key of per-kind caches. */
export function typeId(type: ResourceType): string {
  return `${type.group}/${type.version}/${type.plural}`;
}

/** "namespace/name" for namespaced objects, "name" for cluster-scoped ones (client-go's MetaNamespaceKeyFunc). */
export function keyString(key: ObjectKey): string {
  return key.namespace ? `${key.namespace}/${key.name}` : key.name;
}

export function parseKey(key: string): ObjectKey {
  const i = key.indexOf("/");
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

export function keyOf(obj: KubeObject): ObjectKey {
  const key: ObjectKey = { name: obj.metadata.name ?? "" };
  if (obj.metadata.namespace) key.namespace = obj.metadata.namespace;
  return key;
}

/**
 * The REST path of a collection (no name) or of one object, optionally with a subresource.
 * A namespaced kind without a namespace gives the all-namespaces collection.
 */
export function resourcePath(type: ResourceType, namespace?: string, name?: string, subresource?: string): string {
  let p = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
  if (type.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${type.plural}`;
  if (name !== undefined) {
    if (name === "") throw new Error(`resourcePath: empty name for ${type.plural}`);
    p += `/${encodeURIComponent(name)}`;
    if (subresource) p += `/${subresource}`;
  }
  return p;
}
