// The subset of Kubernetes JSONPath (k8s.io/client-go/util/jsonpath) used by CRD
// additionalPrinterColumns and selectableFields: `.spec.foo`, `.metadata.labels.x`,
// `['key.with.dots']`, `[0]`, `[-1]`, `[1:3]`, `[*]`, `.*`, `..name` and filters such as
// `[?(@.type=="Ready")]`. Missing keys yield no result rather than an error, as printer columns
// are evaluated with AllowMissingKeys(true).
import { humanDuration } from "../registry/core/age.ts";
import { JSONPathError, type Literal, Parser, type Segment } from "./jsonpath-parse.ts";
import { isRecord } from "../../utils/guards.ts";

export { JSONPathError };

export interface JSONPath {
  readonly expression: string;
  /** Every value the path selects, in document order. */
  find(obj: unknown): unknown[];
}

function step(values: unknown[], seg: Segment): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    switch (seg.kind) {
      case "field":
        if (isRecord(v) && v[seg.name] !== undefined) out.push(v[seg.name]);
        break;
      case "wildcard":
        if (Array.isArray(v)) out.push(...v);
        else if (isRecord(v)) out.push(...Object.values(v));
        break;
      case "recursive":
        for (const d of descendants(v)) {
          if (seg.name === undefined) out.push(d);
          else if (isRecord(d) && d[seg.name] !== undefined) out.push(d[seg.name]);
        }
        break;
      default:
        if (Array.isArray(v)) selectItems(v, seg, out);
    }
  }
  return out;
}

/** The items of list v that an index, slice or filter segment selects, appended to out. */
function selectItems(v: unknown[], seg: Extract<Segment, { kind: "index" | "slice" | "filter" }>, out: unknown[]): void {
  switch (seg.kind) {
    case "index": {
      const i = seg.index < 0 ? v.length + seg.index : seg.index;
      if (i >= 0 && i < v.length) out.push(v[i]);
      break;
    }
    case "slice":
      out.push(...v.slice(seg.start ?? 0, seg.end ?? v.length));
      break;
    case "filter":
      for (const item of v) if (matches(item, seg)) out.push(item);
      break;
  }
}

function descendants(v: unknown): unknown[] {
  const out: unknown[] = [v];
  if (Array.isArray(v)) for (const x of v) out.push(...descendants(x));
  else if (isRecord(v)) for (const x of Object.values(v)) out.push(...descendants(x));
  return out;
}

function matches(item: unknown, seg: Extract<Segment, { kind: "filter" }>): boolean {
  const found = seg.path.reduce<unknown[]>((vals, s) => step(vals, s), [item]);
  if (seg.op === undefined) return found.length > 0;
  return found.some((x) => {
    const a = x as Literal;
    const b = seg.value;
    switch (seg.op) {
      case "==":
        return a === b;
      case "!=":
        return a !== b;
      default: {
        if (typeof a !== "number" || typeof b !== "number") return false;
        return seg.op === "<" ? a < b : seg.op === "<=" ? a <= b : seg.op === ">" ? a > b : a >= b;
      }
    }
  });
}

/** Parses a JSONPath expression, with or without `{...}` and a leading `$`. Throws JSONPathError. */
export function parseJSONPath(expression: string): JSONPath {
  let src = expression.trim();
  if (src.startsWith("{") && src.endsWith("}")) src = src.slice(1, -1).trim();
  if (src.startsWith("$")) src = src.slice(1);
  if (src === "") throw new JSONPathError(expression, "empty expression");
  const segs = new Parser(src, expression).segments(false);
  return {
    expression,
    find: (obj) => segs.reduce<unknown[]>((vals, s) => step(vals, s), [obj]),
  };
}

/** Text of a value as kubectl's JSONPath printer writes it (Go's fmt %v for maps and lists). */
export function printValue(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "<nil>";
  if (Array.isArray(v)) return `[${v.map(printValue).join(" ")}]`;
  if (isRecord(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${printValue(v[k])}`).join(" ")}]`;
  }
  return String(v);
}

export type ColumnType = "string" | "integer" | "number" | "boolean" | "date";

/**
 * A printer-column cell, as apiextensions-apiserver's table convertor builds it from the first
 * value the path selects: strings are printed, numbers and booleans kept when they have the
 * column's type, dates shown as ages ("5m") relative to `now`; anything else is null.
 */
export function cellForJSONValue(type: ColumnType, value: unknown, now: Date): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "string":
      return printValue(value);
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date": {
      if (typeof value !== "string") return null;
      if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return "<invalid>";
      const t = Date.parse(value);
      if (Number.isNaN(t)) return "<invalid>";
      return humanDuration(now.getTime() - t);
    }
  }
}
