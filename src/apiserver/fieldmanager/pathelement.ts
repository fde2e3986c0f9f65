// Path elements of field sets, in their serialized form (the keys of managedFields' fieldsV1):
// `f:<field>` a map field, `k:{"name":"a"}` an associative-list item by its keys, `v:<json>` a
// set item, `i:<n>` a list index. The serialized form is canonical (key fields sorted, JSON as Go
// writes it), so it serves as the identity of an element.
import { isRecord } from "../../utils/guards.ts";

/** A serialized path element. */
export type PE = string;

/** JSON as Go's encoding/json writes it: object keys sorted, <, > and & escaped. */
export function goJSON(v: unknown): string {
  return rawJSON(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function rawJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(rawJSON).join(",")}]`;
  if (isRecord(v)) {
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${rawJSON(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

export function fieldPE(name: string): PE {
  return `f:${name}`;
}

/** An associative-list item by its key fields (sorted by name, as structured-merge-diff does). */
export function keyPE(fields: Array<[string, unknown]>): PE {
  const sorted = [...fields].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `k:{${sorted.map(([k, v]) => `${goJSON(k)}:${goJSON(v)}`).join(",")}}`;
}

export function valuePE(v: unknown): PE {
  return `v:${goJSON(v)}`;
}

export function indexPE(i: number): PE {
  return `i:${i}`;
}

/** The field name of an `f:` element, undefined for other elements. */
export function fieldNameOf(pe: PE): string | undefined {
  return pe.startsWith("f:") ? pe.slice(2) : undefined;
}

/** Parses a client-supplied element into its canonical form; throws on anything malformed. */
export function parsePE(s: string): PE {
  if (s.length < 2 || s[1] !== ":") throw new Error(`invalid path element ${JSON.stringify(s)}: missing colon`);
  const rest = s.slice(2);
  switch (s[0]) {
    case "f":
      return s;
    case "v":
      return valuePE(JSON.parse(rest));
    case "k": {
      const obj: unknown = JSON.parse(rest);
      if (!isRecord(obj)) throw new Error(`invalid path element ${JSON.stringify(s)}: keys must be an object`);
      return keyPE(Object.entries(obj));
    }
    case "i":
      if (!/^-?\d{1,9}$/.test(rest)) throw new Error(`invalid path element ${JSON.stringify(s)}: bad index`);
      return indexPE(Number(rest));
    default:
      throw new Error(`invalid path element ${JSON.stringify(s)}: unknown path element type`);
  }
}

/** A value as structured-merge-diff prints it in paths: strings quoted, lists and maps spelled out. */
function valueString(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(",")}]`;
  if (isRecord(v)) return `{${Object.keys(v).sort().map((k) => `${k}=${valueString(v[k])}`).join(";")}}`;
  return String(v);
}

/** The human form used in conflict messages: `.spec`, `[name="a"]`, `[="x"]`, `[0]`. */
export function peString(pe: PE): string {
  const rest = pe.slice(2);
  switch (pe[0]) {
    case "f":
      return `.${rest}`;
    case "k": {
      const obj = JSON.parse(rest) as Record<string, unknown>;
      return `[${Object.keys(obj).sort().map((k) => `${k}=${valueString(obj[k])}`).join(",")}]`;
    }
    case "v":
      return `[=${valueString(JSON.parse(rest))}]`;
    default:
      return `[${rest}]`;
  }
}

export function pathString(path: readonly PE[]): string {
  return path.map(peString).join("");
}

const TYPE_RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function typeRank(v: unknown): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === "boolean") return 1;
  if (typeof v === "number") return 2;
  if (typeof v === "string") return 3;
  return Array.isArray(v) ? 4 : 5;
}

function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === "number" && typeof b === "number") return a - b;
  const sa = typeof a === "string" ? a : goJSON(a);
  const sb = typeof b === "string" ? b : goJSON(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** structured-merge-diff's order: fields, then keys, values, indexes; each by its content. */
export function comparePE(a: PE, b: PE): number {
  if (a === b) return 0;
  const ta = TYPE_RANK[a[0]!] ?? 4;
  const tb = TYPE_RANK[b[0]!] ?? 4;
  if (ta !== tb) return ta - tb;
  const ra = a.slice(2);
  const rb = b.slice(2);
  switch (a[0]) {
    case "f":
      return ra < rb ? -1 : 1;
    case "i":
      return Number(ra) - Number(rb);
    case "v":
      return compareValues(JSON.parse(ra), JSON.parse(rb));
    default: {
      const byKey = (x: [string, unknown], y: [string, unknown]) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0);
      const ea = Object.entries(JSON.parse(ra) as Record<string, unknown>).sort(byKey);
      const eb = Object.entries(JSON.parse(rb) as Record<string, unknown>).sort(byKey);
      for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
        const [ka, va] = ea[i]!;
        const [kb, vb] = eb[i]!;
        if (ka !== kb) return ka < kb ? -1 : 1;
        const c = compareValues(va, vb);
        if (c !== 0) return c;
      }
      return ea.length - eb.length;
    }
  }
}
