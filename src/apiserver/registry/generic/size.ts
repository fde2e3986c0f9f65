// The size bound of stored objects. etcd refuses requests over about 1.5 MiB (its default
// --max-request-bytes), which kube-apiserver passes on as "etcdserver: request is too large";
// this server refuses every object over its kind's limit itself, on create, update, patch and
// status writes alike, with a 413 that names the limit, before anything is stored.
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { newRequestEntityTooLarge, StatusError } from "../../../apimachinery/errors.ts";
import { depthMessage, MAX_NESTING_DEPTH, measureJson } from "../../../apimachinery/json/bounds.ts";
import type { ResourceDefinition } from "../types.ts";

/** etcd's default request limit (1.5 MiB), the bound of any stored object. */
export const DEFAULT_MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

export function maxObjectBytes(def: Pick<ResourceDefinition, "maxObjectBytes">): number {
  return def.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
}

export function objectTooLarge(def: Pick<ResourceDefinition, "maxObjectBytes" | "kind">, size: number | undefined, name: string): StatusError {
  const limit = maxObjectBytes(def);
  const what = name ? `${def.kind} "${name}"` : `the ${def.kind}`;
  const actual = size === undefined ? "" : `, the object is ${size} bytes`;
  return newRequestEntityTooLarge(`Request entity too large: ${what} is too large to store: limit is ${limit} bytes${actual}`);
}

/** 413 unless the encoded object (the JSON that is stored) fits its kind's limit. */
export function checkObjectSize(def: Pick<ResourceDefinition, "maxObjectBytes" | "kind">, obj: KubeObject, encoded: string): void {
  // UTF-8 takes at least as many bytes as UTF-16 code units only for ASCII; count exactly when close.
  const limit = maxObjectBytes(def);
  if (encoded.length * 3 <= limit) return;
  const size = Buffer.byteLength(encoded, "utf8");
  if (size > limit) throw objectTooLarge(def, size, obj.metadata?.name ?? "");
}

/**
 * The patched object, before anything walks it recursively: nested at most MAX_NESTING_DEPTH deep
 * (422) and no larger than the kind allows (413; measured without recursion, stopping there).
 */
export function checkPatched(def: Pick<ResourceDefinition, "maxObjectBytes" | "kind">, patched: unknown, name: string): void {
  const m = measureJson(patched, { maxDepth: MAX_NESTING_DEPTH, maxBytes: maxObjectBytes(def) });
  if (m.exceeded === "depth") throw new StatusError(422, "Invalid", `the patched object is nested too deeply: ${depthMessage()}`);
  if (m.exceeded === "bytes") throw objectTooLarge(def, undefined, name);
}
