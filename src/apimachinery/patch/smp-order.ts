// Element identity and ordering for strategic merge patch lists (the order rules of
// k8s.io/apimachinery/pkg/util/strategicpatch): items named in the patch (or in its
// $setElementOrder list) keep the patch's relative order, items only on the server keep theirs,
// and the two are interleaved using the server's order where both are known. New items that
// the server does not know come before the server-only items that follow them.
import { newBadRequest } from "../errors.ts";
import { deepEqual, getOwn, hasOwn } from "./json-value.ts";
import { isRecord } from "../../utils/guards.ts";

/** The identity of a list element: its merge-key value for lists of objects, else the value itself. */
export function identityOf(item: unknown, mergeKey: string): unknown {
  if (!mergeKey) return item;
  return isRecord(item) ? getOwn(item, mergeKey) : undefined;
}

/**
 * A string equal for structurally equal JSON values (object keys sorted), so identities can be
 * looked up in a Map: every list operation here stays linear, not quadratic, in the list sizes.
 */
export function canonicalKey(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalKey).join(",")}]`;
  if (isRecord(v)) {
    const members = Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalKey(v[k])}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/** The identity of an element as a Map key; undefined when it has none (it then matches nothing). */
export function identityKey(item: unknown, mergeKey: string): string | undefined {
  const id = identityOf(item, mergeKey);
  return id === undefined ? undefined : canonicalKey(id);
}

/** Positions of the elements of a list by identity (the first element of each identity). */
export class IdentityIndex {
  private readonly at = new Map<string, number>();

  constructor(
    list: readonly unknown[],
    private readonly mergeKey: string,
  ) {
    list.forEach((e, i) => this.add(e, i));
  }

  add(item: unknown, index: number): void {
    const key = identityKey(item, this.mergeKey);
    if (key !== undefined && !this.at.has(key)) this.at.set(key, index);
  }

  /** Index of the element with the same identity, or -1. Elements without a merge key match nothing. */
  indexOf(item: unknown): number {
    const key = identityKey(item, this.mergeKey);
    return key === undefined ? -1 : (this.at.get(key) ?? -1);
  }
}

/** Index of the element with the same identity, or -1. Elements without a merge key match nothing. */
export function indexByIdentity(list: readonly unknown[], item: unknown, mergeKey: string): number {
  return new IdentityIndex(list, mergeKey).indexOf(item);
}

/** Splits items into those whose identity appears in `by` and the others, keeping order. */
export function partitionByPresence(items: readonly unknown[], by: readonly unknown[], mergeKey: string): [unknown[], unknown[]] {
  const index = new IdentityIndex(by, mergeKey);
  const present: unknown[] = [];
  const absent: unknown[] = [];
  for (const item of items) (index.indexOf(item) >= 0 ? present : absent).push(item);
  return [present, absent];
}

function sortByOrder(items: unknown[], order: readonly unknown[], mergeKey: string): unknown[] {
  const index = new IdentityIndex(order, mergeKey);
  return items
    .map((item, i) => ({ item, i, at: index.indexOf(item) }))
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map((e) => e.item);
}

/**
 * Sorts patchItems by patchOrder and serverOnly by serverOrder, then merges them: a server-only
 * item goes first only when both it and the next patch item are in serverOrder and it precedes it.
 */
export function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
): unknown[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey);
  const server = new IdentityIndex(serverOrder, mergeKey);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = server.indexOf(left[i]);
      const ri = server.indexOf(right[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** Removes duplicates (structural equality), keeping the first occurrence. */
export function dedupe(items: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = canonicalKey(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The $deleteFromPrimitiveList directive: drops every element equal to one in toDelete. */
export function deleteFromList(current: readonly unknown[], toDelete: readonly unknown[]): unknown[] {
  const gone = new Set(toDelete.map(canonicalKey));
  return current.filter((e) => !gone.has(canonicalKey(e)));
}

const isDirectiveElement = (e: unknown): boolean => isRecord(e) && hasOwn(e, "$patch");

/**
 * The patch list (without deletions) must name its items in the same relative order as the
 * $setElementOrder list, and only items that list contains.
 */
export function validateSetElementOrder(patchList: readonly unknown[], order: readonly unknown[], mergeKey: string): void {
  if (patchList.length === 0 || order.length === 0) return;
  const items = patchList.filter((e) => !(mergeKey && isRecord(e) && getOwn(e, "$patch") === "delete"));
  let p = 0;
  let s = 0;
  while (p < items.length && s < order.length) {
    if (isDirectiveElement(items[p])) {
      p++;
      continue;
    }
    const want = order[s];
    if (mergeKey && (!isRecord(items[p]) || !isRecord(want) || !hasOwn(want, mergeKey))) {
      throw newBadRequest(`invalid patch format of setElementOrder list: every element must be an object with the merge key "${mergeKey}"`);
    }
    if (deepEqual(identityOf(items[p], mergeKey), identityOf(order[s], mergeKey))) p++;
    s++;
  }
  if (p < items.length) {
    throw newBadRequest(
      `the order in patch list ${JSON.stringify(patchList)} doesn't match $setElementOrder list ${JSON.stringify(order)}`,
    );
  }
}
