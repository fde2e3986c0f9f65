// get and list with the resourceVersion semantics of docs/kubernetes-api.md#resourceversion and the pagination of docs/kubernetes-api.md#selectors-and-pagination: pages of
// one list are read at the first page's revision (carried in the continue token).
import type { KubeList, KubeObject } from "../../../apis/meta/v1/types.ts";
import { newBadRequest, newNotFound, newResourceExpired } from "../../../apimachinery/errors.ts";
import { decodeContinueToken, encodeContinueToken, keyAfter } from "../../../apimachinery/list/continue-token.ts";
import { type KeyValue, type ListOptions as StorageListOptions, type ListResult, StorageError } from "../../storage/interface.ts";
import { groupVersionOf, type RequestContext } from "../types.ts";
import { decode, decodeShared, listPrefix, objectKey, resourcePrefix } from "./codec.ts";
import type { StoreCore } from "./core.ts";
import type { GetOptions, ListOptions } from "./interface.ts";
import { validateListOptions } from "./list-options.ts";
import { parseResourceVersion, storageToStatus, tooLargeResourceVersion } from "./rv.ts";
import { parseSelection, type Selection } from "./selection.ts";

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
  const kv = await getKey(core, objectKey(core.def, ctx.namespace, name), options.allowStale);
  if (rv && kv && kv.modRevision < rv) await ensureRevision(core, rv);
  if (!kv) throw newNotFound(core.gr, name);
  return options.readOnly ? decodeShared(core.def, kv) : decode(core.def, kv);
}

export async function getKey(core: StoreCore, key: string, allowStale = false): Promise<KeyValue | undefined> {
  try {
    return await core.storage.get(key, allowStale ? { allowStale } : undefined);
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
  const plan = planList(options, rv, root);
  const out = (items: KubeObject[], listRevision: number, cont?: string, remaining?: number): KubeList => {
    const meta: KubeList["metadata"] = { resourceVersion: String(listRevision) };
    if (cont) meta.continue = cont;
    if (remaining !== undefined) meta.remainingItemCount = remaining;
    return { apiVersion: groupVersionOf(def), kind: def.listKind, metadata: meta, items };
  };

  // metadata.name=n within one namespace (or cluster-scoped): one key, no scan.
  if (selection.singleName !== undefined && !options.continue && !plan.exact && (!def.namespaced || ctx.namespace)) {
    const one = await listSingleName(core, ctx, selection, selection.singleName, rv);
    return out(one.items, one.revision);
  }

  const prefix = listPrefix(def, ctx.namespace);
  const scan = await scanPages(core, prefix, plan, selection, Boolean(options.continue));
  if (rv && !plan.exact && scan.revision < rv) throw tooLargeResourceVersion(rv, scan.revision);
  if (!plan.limit || !scan.more || scan.lastKey === undefined) return out(scan.items, scan.revision);
  const next = keyAfter(scan.lastKey);
  // As kube-apiserver: how many objects follow this page, only when nothing is filtered out.
  const remaining = selection.everything ? await countAfter(core, prefix, scan.revision, next) : undefined;
  return out(scan.items, scan.revision, encodeContinueToken(next, root, scan.revision), remaining);
}

/** How a list reads storage: at which revision, from which key, how many items, and whether stale reads are fine. */
interface ListPlan {
  limit: number;
  /** The revision to read at (a continue token's, or an exact resourceVersion); undefined: the newest. */
  revision?: number;
  startKey?: string;
  allowStale: boolean;
  /** The list must be served at exactly `revision`. */
  exact: boolean;
}

function planList(options: ListOptions, rv: number | undefined, root: string): ListPlan {
  const limit = options.limit ?? 0;
  if (options.continue) {
    if (rv) throw newBadRequest("specifying resource version is not allowed when using continue");
    const token = decodeContinueToken(options.continue, root);
    return { limit, revision: token.resourceVersion, startKey: token.startKey, allowStale: false, exact: true };
  }
  // "Any": may be served from the cache; limit may be ignored, and is.
  if (rv === 0) return { limit: 0, allowStale: true, exact: false };
  if (rv === undefined) return { limit, allowStale: false, exact: false };
  const exact = options.resourceVersionMatch === "Exact" || (limit > 0 && options.resourceVersionMatch !== "NotOlderThan");
  return { limit, ...(exact ? { revision: rv } : {}), allowStale: false, exact };
}

/** The list of a metadata.name selector: the one key it names (a name with "/" names nothing). */
async function listSingleName(core: StoreCore, ctx: RequestContext, selection: Selection, name: string, rv: number | undefined): Promise<{ items: KubeObject[]; revision: number }> {
  const current = rv ? await ensureRevision(core, rv) : await core.storage.currentRevision();
  const kv = name && !name.includes("/") ? await getKey(core, objectKey(core.def, ctx.namespace, name)) : undefined;
  const obj = kv ? decode(core.def, kv) : undefined;
  return { items: obj && selection.matches(obj) ? [obj] : [], revision: Math.max(current, kv?.modRevision ?? 0) };
}

interface Scan {
  items: KubeObject[];
  /** The revision every page was read at. */
  revision: number;
  lastKey?: string;
  /** Keys follow the last one read. */
  more: boolean;
}

/** Reads pages at one revision until `limit` objects matched (or all, without a limit). */
async function scanPages(core: StoreCore, prefix: string, plan: ListPlan, selection: Selection, continued: boolean): Promise<Scan> {
  const { limit, allowStale } = plan;
  const items: KubeObject[] = [];
  let readRevision = plan.revision;
  let nextStart = plan.startKey;
  let lastKey: string | undefined;
  for (;;) {
    let page: ListResult;
    try {
      page = await core.storage.list(prefix, { revision: readRevision, startKey: nextStart, limit, allowStale });
    } catch (err) {
      if (continued && err instanceof StorageError && err.code === "Compacted") throw newResourceExpired(EXPIRED_CONTINUE);
      throw storageToStatus(err, plan.revision);
    }
    readRevision ??= page.revision;
    const read = takeMatching(core, page.items, items, limit, selection);
    lastKey = read.lastKey ?? lastKey;
    const more = page.more || read.count < page.items.length;
    if (!limit || items.length >= limit || !page.more || lastKey === undefined) return { items, revision: readRevision, lastKey, more };
    nextStart = keyAfter(lastKey);
  }
}

/** Appends the page's matching objects to items until limit; returns how many keys were read and the last. */
function takeMatching(core: StoreCore, page: KeyValue[], items: KubeObject[], limit: number, selection: Selection): { count: number; lastKey?: string } {
  let count = 0;
  let lastKey: string | undefined;
  for (const kv of page) {
    if (limit && items.length >= limit) break;
    count++;
    lastKey = kv.key;
    const obj = decode(core.def, kv);
    if (selection.matches(obj)) items.push(obj);
  }
  return { count, lastKey };
}

/** Keys under prefix from startKey on, at revision (same snapshot as the page). */
async function countAfter(core: StoreCore, prefix: string, revision: number, startKey: string): Promise<number> {
  return (await listStorage(core, prefix, { revision, startKey })).items.length;
}
