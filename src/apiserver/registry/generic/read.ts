// get and list with the resourceVersion semantics of docs/kubernetes-api.md#resourceversion and the pagination of docs/kubernetes-api.md#selectors-and-pagination: pages of
// one list are read at the first page's revision (carried in the continue token).
import type { KubeList, KubeObject } from "../../../apis/meta/v1/types.ts";
import { newBadRequest, newNotFound, newResourceExpired } from "../../../apimachinery/errors.ts";
import { decodeContinueToken, encodeContinueToken, keyAfter } from "../../../apimachinery/list/continue-token.ts";
import { type KeyValue, type ListOptions as StorageListOptions, type ListResult, StorageError } from "../../storage/interface.ts";
import { groupVersionOf, type RequestContext } from "../types.ts";
import { decode, listPrefix, objectKey, resourcePrefix } from "./codec.ts";
import type { StoreCore } from "./core.ts";
import type { GetOptions, ListOptions } from "./interface.ts";
import { validateListOptions } from "./list-options.ts";
import { parseResourceVersion, storageToStatus, tooLargeResourceVersion } from "./rv.ts";
import { parseSelection } from "./selection.ts";

const EXPIRED_CONTINUE =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.";

export async function listStorage(core: StoreCore, prefix: string, options: StorageListOptions, rv?: number): Promise<ListResult> {
  try {
    return await core.storage.list(prefix, options);
  } catch (err) {
    throw storageToStatus(err, rv ?? options.revision);
  }
}

export async function get(core: StoreCore, ctx: RequestContext, name: string, options: GetOptions = {}): Promise<KubeObject> {
  const rv = parseResourceVersion(options.resourceVersion);
  const kv = await getKey(core, objectKey(core.def, ctx.namespace, name));
  if (rv && kv && kv.modRevision < rv) await ensureRevision(core, rv);
  if (!kv) throw newNotFound(core.gr, name);
  return decode(core.def, kv);
}

export async function getKey(core: StoreCore, key: string): Promise<KeyValue | undefined> {
  try {
    return await core.storage.get(key);
  } catch (err) {
    throw storageToStatus(err);
  }
}

/**
 * The version to retry with after a write lost a compare-and-swap: the one the storage reported in its
 * Conflict. A plain read may not show it yet (reads show durable commits, through the watch cache), and
 * a retry from such a read would lose again at once, as often as the loop allows.
 */
export function currentAfterConflict(err: unknown): KeyValue | undefined {
  return err instanceof StorageError && err.code === "Conflict" ? err.extra.current : undefined;
}

/** "Not older than rv": the storage must have reached rv, else 504 Too large resource version. */
async function ensureRevision(core: StoreCore, rv: number): Promise<number> {
  const current = await core.storage.currentRevision();
  if (current < rv) throw tooLargeResourceVersion(rv, current);
  return current;
}

export async function list(core: StoreCore, ctx: RequestContext, options: ListOptions = {}): Promise<KubeList> {
  validateListOptions(options);
  const def = core.def;
  const selection = parseSelection(def, options);
  const rv = parseResourceVersion(options.resourceVersion);
  const root = resourcePrefix(def);
  const prefix = listPrefix(def, ctx.namespace);
  let limit = options.limit ?? 0;
  let revision: number | undefined;
  let startKey: string | undefined;
  let allowStale = false;
  let exact = false;

  if (options.continue) {
    if (rv) throw newBadRequest("specifying resource version is not allowed when using continue");
    const token = decodeContinueToken(options.continue, root);
    revision = token.resourceVersion;
    startKey = token.startKey;
    exact = true;
  } else if (rv === 0) {
    // "Any": may be served from the cache; limit may be ignored, and is.
    allowStale = true;
    limit = 0;
  } else if (rv !== undefined) {
    exact = options.resourceVersionMatch === "Exact" || (limit > 0 && options.resourceVersionMatch !== "NotOlderThan");
    if (exact) revision = rv;
  }

  const items: KubeObject[] = [];
  const out = (listRevision: number, cont?: string, remaining?: number): KubeList => {
    const meta: KubeList["metadata"] = { resourceVersion: String(listRevision) };
    if (cont) meta.continue = cont;
    if (remaining !== undefined) meta.remainingItemCount = remaining;
    return { apiVersion: groupVersionOf(def), kind: def.listKind, metadata: meta, items };
  };

  // metadata.name=n within one namespace (or cluster-scoped): one key, no scan.
  if (selection.singleName !== undefined && !options.continue && !exact && (!def.namespaced || ctx.namespace)) {
    const current = rv ? await ensureRevision(core, rv) : await core.storage.currentRevision();
    const name = selection.singleName;
    const kv = name && !name.includes("/") ? await getKey(core, objectKey(def, ctx.namespace, name)) : undefined;
    if (kv) {
      const obj = decode(def, kv);
      if (selection.matches(obj)) items.push(obj);
    }
    return out(Math.max(current, kv?.modRevision ?? 0));
  }

  let readRevision = revision;
  let nextStart = startKey;
  let lastKey: string | undefined;
  let more = false;
  for (;;) {
    let page: ListResult;
    try {
      page = await core.storage.list(prefix, { revision: readRevision, startKey: nextStart, limit, allowStale });
    } catch (err) {
      if (options.continue && err instanceof StorageError && err.code === "Compacted") throw newResourceExpired(EXPIRED_CONTINUE);
      throw storageToStatus(err, revision);
    }
    readRevision ??= page.revision;
    more = page.more;
    let i = 0;
    for (; i < page.items.length && (!limit || items.length < limit); i++) {
      const kv = page.items[i]!;
      lastKey = kv.key;
      const obj = decode(def, kv);
      if (selection.matches(obj)) items.push(obj);
    }
    if (i < page.items.length) more = true;
    if (!limit || items.length >= limit || !page.more || lastKey === undefined) break;
    nextStart = keyAfter(lastKey);
  }
  if (rv && !exact && readRevision < rv) throw tooLargeResourceVersion(rv, readRevision);
  const cont = limit && more && lastKey !== undefined ? encodeContinueToken(keyAfter(lastKey), root, readRevision) : undefined;
  // As kube-apiserver: how many objects follow this page, only when nothing is filtered out.
  const remaining = cont && selection.everything ? await countAfter(core, prefix, readRevision, keyAfter(lastKey!)) : undefined;
  return out(readRevision, cont, remaining);
}

/** Keys under prefix from startKey on, at revision (same snapshot as the page). */
async function countAfter(core: StoreCore, prefix: string, revision: number, startKey: string): Promise<number> {
  return (await listStorage(core, prefix, { revision, startKey })).items.length;
}
