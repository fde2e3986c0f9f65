// Key-range helpers shared by the storage implementations. Keys are compared as JavaScript strings
// (UTF-16 code units); for the ASCII keys the API server uses this is the same order as SQLite's
// BINARY collation and etcd's byte order.

/** A list/watch prefix names a directory: "/a/b" becomes "/a/b/" ("" stays "": everything). */
export function normalizePrefix(prefix: string): string {
  if (prefix === "" || prefix.endsWith("/")) return prefix;
  return `${prefix}/`;
}

/** The smallest string greater than every string starting with prefix; undefined for "" (no bound). */
export function prefixEnd(prefix: string): string | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const c = prefix.charCodeAt(i);
    if (c < 0xffff) return prefix.slice(0, i) + String.fromCharCode(c + 1);
  }
  return undefined;
}

/** The first key a range read over prefix (from startKey on) must look at. */
export function rangeStart(prefix: string, startKey: string | undefined): string {
  return startKey !== undefined && startKey > prefix ? startKey : prefix;
}
