// Bounds on the nesting depth and size of JSON values that come from clients. Every recursive
// walk over such a value (decoding, structuredClone, pruning, defaulting, validation, patching,
// comparison, encoding) relies on the value being at most MAX_NESTING_DEPTH containers deep, so
// bodies and patch results are checked here first, without recursion, in time linear in their
// size and stopping as soon as a bound is passed.

/**
 * The deepest nesting of objects and arrays a body or stored object may have (`{}` is depth 1).
 * Kubernetes' JSON decoder allows 10000; this server walks values recursively, so it allows less,
 * still far more than any Kubernetes object needs.
 */
export const MAX_NESTING_DEPTH = 500;

/** The message of a depth violation, as Go's JSON decoder words it. */
export function depthMessage(limit = MAX_NESTING_DEPTH): string {
  return `exceeded max depth of ${limit}`;
}

/**
 * The nesting depth of JSON text (`[` and `{` outside strings), counted up to limit + 1: a result
 * above limit means "too deep". Linear, no recursion, nothing allocated; the text need not be valid.
 */
export function jsonTextDepth(text: string, limit = MAX_NESTING_DEPTH): number {
  let depth = 0;
  let max = 0;
  // Inside a string only its end matters: jump to the next quote with indexOf (native, far faster
  // than a loop over a long value), stepping over escaped characters. `backslash` is the next
  // backslash at or after the position it was searched from (Infinity: none left).
  let backslash = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; ; ) {
        const quote = text.indexOf('"', i);
        if (quote < 0) return max; // unterminated: JSON.parse reports it
        if (backslash < i) {
          const b = text.indexOf("\\", i);
          backslash = b < 0 ? Infinity : b;
        }
        if (backslash > quote) {
          i = quote;
          break;
        }
        i = backslash + 2; // the escaped character (maybe a quote) is part of the string
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
    }
  }
  return max;
}

export interface JsonMeasure {
  /** Containers on the deepest path (a scalar is 0). */
  depth: number;
  /** Size of the value's compact JSON, in UTF-16 code units (close to its UTF-8 bytes for ASCII). */
  bytes: number;
  /** Values visited (containers and scalars). */
  nodes: number;
  /** Which bound was passed, if any; the walk stopped there and the figures are lower bounds. */
  exceeded?: "depth" | "bytes" | "nodes";
}

export interface MeasureLimits {
  maxDepth?: number;
  maxBytes?: number;
  maxNodes?: number;
}

function scalarBytes(v: unknown): number {
  if (typeof v === "string") return v.length + 2;
  if (typeof v === "number") return String(v).length;
  if (typeof v === "boolean") return v ? 4 : 5;
  return 4; // null (and anything JSON would print as null)
}

/**
 * Measures a parsed JSON value without recursion, stopping as soon as one of the limits is
 * passed. The work is at most proportional to the smallest limit given.
 */
export function measureJson(value: unknown, limits: MeasureLimits = {}): JsonMeasure {
  const maxDepth = limits.maxDepth ?? Infinity;
  const maxBytes = limits.maxBytes ?? Infinity;
  const maxNodes = limits.maxNodes ?? Infinity;
  const out: JsonMeasure = { depth: 0, bytes: 0, nodes: 0 };
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const d = depths.pop()!;
    out.nodes++;
    if (typeof v === "object" && v !== null) {
      const depth = d + 1;
      if (depth > out.depth) out.depth = depth;
      if (Array.isArray(v)) {
        out.bytes += 1 + Math.max(v.length, 1);
        for (let i = v.length - 1; i >= 0; i--) {
          values.push(v[i]);
          depths.push(depth);
        }
      } else {
        const keys = Object.keys(v);
        out.bytes += 1 + Math.max(keys.length, 1);
        for (const k of keys) {
          out.bytes += k.length + 3;
          values.push((v as Record<string, unknown>)[k]);
          depths.push(depth);
        }
      }
    } else {
      out.bytes += scalarBytes(v);
    }
    if (out.depth > maxDepth) out.exceeded = "depth";
    else if (out.bytes > maxBytes) out.exceeded = "bytes";
    else if (out.nodes > maxNodes) out.exceeded = "nodes";
    if (out.exceeded) return out;
  }
  return out;
}
