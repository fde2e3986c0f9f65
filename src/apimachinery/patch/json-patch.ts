// RFC 6902 JSON Patch (application/json-patch+json), applied to a deep copy of the document.
// Errors: a body that is not an array of operation objects -> 400 BadRequest; more than 10000
// operations -> 413 RequestEntityTooLarge (as kube-apiserver); an operation that is malformed or
// cannot be applied (missing path, failed test, ...) -> 422 Invalid.
// Work is bounded as well as the operation count: copies may add at most `maxCopyBytes` in total
// (kube-apiserver's jsonpatch.AccumulatedCopySizeLimit, the request body limit), no value may end
// up nested deeper than MAX_NESTING_DEPTH, and the walking, shifting and comparing all operations
// do together is capped (`maxWork`); past any of them the patch is a 422, not a busy server.
import { StatusError, newBadRequest, newRequestEntityTooLarge } from "../errors.ts";
import { depthMessage, MAX_NESTING_DEPTH, measureJson } from "../json/bounds.ts";
import { type JsonObject, deepCopy, getOwn, hasOwn, kindOf, setOwn } from "./json-value.ts";
import { isRecord } from "../../utils/guards.ts";

export const MAX_JSON_PATCH_OPERATIONS = 10000;

export interface JsonPatchLimits {
  /** Bytes (as compact JSON) that copy operations may add together. */
  maxCopyBytes: number;
  /**
   * Work units: path tokens walked, members of moved values measured, members compared by test,
   * array elements shifted (16 per unit). A unit is well under a microsecond.
   */
  maxWork: number;
  /** The deepest nesting any value of the result may have. */
  maxDepth: number;
}

export const DEFAULT_JSON_PATCH_LIMITS: JsonPatchLimits = {
  maxCopyBytes: 3 * 1024 * 1024,
  maxWork: 1_000_000,
  maxDepth: MAX_NESTING_DEPTH,
};

export type JsonPatchOp = "add" | "remove" | "replace" | "move" | "copy" | "test";

export interface JsonPatchOperation {
  op: JsonPatchOp;
  path: string;
  from?: string;
  value?: unknown;
}

const OPS: readonly string[] = ["add", "remove", "replace", "move", "copy", "test"];

/** 422 for a patch that cannot be applied; the message says which operation failed and why. */
function unprocessable(message: string): StatusError {
  return new StatusError(422, "Invalid", message);
}

class OpError extends Error {}

/** Checks the shape of the patch body: 400 unless an array of objects, 413 over 10000 operations. */
export function decodeJsonPatch(patch: unknown): unknown[] {
  if (!Array.isArray(patch)) {
    throw newBadRequest(`a JSON patch must be a JSON array of operations, got ${kindOf(patch)}`);
  }
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw newRequestEntityTooLarge(
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`,
    );
  }
  patch.forEach((op, i) => {
    if (!isRecord(op)) throw newBadRequest(`JSON patch operation ${i} must be a JSON object, got ${kindOf(op)}`);
  });
  return patch;
}

function validateOperation(raw: unknown): JsonPatchOperation {
  const o = raw as JsonObject;
  const op = getOwn(o, "op");
  if (typeof op !== "string" || !OPS.includes(op)) {
    throw new OpError(`unknown op ${JSON.stringify(op ?? null)}: must be one of ${OPS.join(", ")}`);
  }
  const path = getOwn(o, "path");
  if (typeof path !== "string") throw new OpError(`"path" must be a string`);
  const out: JsonPatchOperation = { op: op as JsonPatchOp, path };
  if (op === "move" || op === "copy") {
    const from = getOwn(o, "from");
    if (typeof from !== "string") throw new OpError(`"from" must be a string`);
    out.from = from;
  }
  if (op === "add" || op === "replace" || op === "test") {
    if (!hasOwn(o, "value")) throw new OpError(`"value" is required`);
    out.value = o["value"];
  }
  return out;
}

/** RFC 6901: "" is the whole document; otherwise "/"-separated tokens with ~1 = "/" and ~0 = "~". */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new OpError(`invalid JSON pointer ${JSON.stringify(pointer)}: must be empty or start with "/"`);
  return pointer
    .slice(1)
    .split("/")
    .map((t) => {
      if (/~[^01]|~$/.test(t)) throw new OpError(`invalid JSON pointer ${JSON.stringify(pointer)}: bad escape in ${JSON.stringify(t)}`);
      return t.replace(/~1/g, "/").replace(/~0/g, "~");
    });
}

/** An array index token: "0" or no leading zeros; returns undefined otherwise. */
function arrayIndex(token: string): number | undefined {
  return /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : undefined;
}

class Document {
  private work = 0;
  private copied = 0;

  constructor(
    public root: unknown,
    private readonly limits: JsonPatchLimits,
  ) {}

  private charge(units: number): void {
    this.work += units;
    if (this.work > this.limits.maxWork) {
      throw new OpError(`the patch needs more than ${this.limits.maxWork} units of work (paths walked, values compared, list elements shifted)`);
    }
  }

  /**
   * Measures a value about to be placed under `tokens`: its depth there must stay within bounds.
   * Values from the patch body are bounded by the body's size; values taken from the document
   * (moved) are charged as work, copied ones count against the copy limit instead.
   */
  private checkDepth(tokens: string[], value: unknown, how: { charge?: boolean; maxBytes?: number } = {}): { bytes: number } {
    const room = this.limits.maxDepth - tokens.length;
    const maxNodes = how.charge ? this.limits.maxWork - this.work + 1 : Infinity;
    const m = measureJson(value, { maxDepth: Math.max(room, 0), maxBytes: how.maxBytes, maxNodes });
    if (how.charge) this.charge(m.nodes);
    if (m.exceeded === "depth" || room < 0) throw new OpError(`the result would be nested too deeply: ${depthMessage(this.limits.maxDepth)}`);
    return { bytes: m.exceeded === "bytes" ? how.maxBytes! + 1 : m.bytes };
  }

  /** The value at tokens, or undefined when it does not exist. */
  find(tokens: string[]): { found: boolean; value: unknown } {
    this.charge(tokens.length);
    let cur: unknown = this.root;
    for (const t of tokens) {
      if (Array.isArray(cur)) {
        const i = arrayIndex(t);
        if (i === undefined || i >= cur.length) return { found: false, value: undefined };
        cur = cur[i];
      } else if (isRecord(cur) && hasOwn(cur, t)) {
        cur = cur[t];
      } else {
        return { found: false, value: undefined };
      }
    }
    return { found: true, value: cur };
  }

  get(pointer: string): unknown {
    const r = this.find(parsePointer(pointer));
    if (!r.found) throw new OpError(`path ${JSON.stringify(pointer)} does not exist`);
    return r.value;
  }

  /** The container holding the last token; it must exist and be an object or array. */
  parentOf(pointer: string, tokens: string[]): { parent: JsonObject | unknown[]; key: string } {
    const r = this.find(tokens.slice(0, -1));
    if (!r.found || !(Array.isArray(r.value) || isRecord(r.value))) {
      throw new OpError(`the parent of path ${JSON.stringify(pointer)} does not exist or is not an object or array`);
    }
    return { parent: r.value, key: tokens[tokens.length - 1]! };
  }

  add(pointer: string, value: unknown): void {
    const tokens = parsePointer(pointer);
    if (tokens.length === 0) {
      this.root = value;
      return;
    }
    const { parent, key } = this.parentOf(pointer, tokens);
    if (Array.isArray(parent)) {
      const i = key === "-" ? parent.length : arrayIndex(key);
      if (i === undefined || i > parent.length) throw new OpError(`array index ${JSON.stringify(key)} is out of bounds`);
      this.charge(Math.ceil((parent.length - i) / 16));
      parent.splice(i, 0, value);
    } else {
      setOwn(parent, key, value);
    }
  }

  remove(pointer: string): unknown {
    const tokens = parsePointer(pointer);
    if (tokens.length === 0) throw new OpError("the whole document cannot be removed");
    const { parent, key } = this.parentOf(pointer, tokens);
    if (Array.isArray(parent)) {
      const i = arrayIndex(key);
      if (i === undefined || i >= parent.length) throw new OpError(`path ${JSON.stringify(pointer)} does not exist`);
      this.charge(Math.ceil((parent.length - i) / 16));
      return parent.splice(i, 1)[0];
    }
    if (!hasOwn(parent, key)) throw new OpError(`path ${JSON.stringify(pointer)} does not exist`);
    const old = parent[key];
    delete parent[key];
    return old;
  }

  replace(pointer: string, value: unknown): void {
    const tokens = parsePointer(pointer);
    if (tokens.length === 0) {
      this.root = value;
      return;
    }
    const { parent, key } = this.parentOf(pointer, tokens);
    if (Array.isArray(parent)) {
      const i = arrayIndex(key);
      if (i === undefined || i >= parent.length) throw new OpError(`path ${JSON.stringify(pointer)} does not exist`);
      parent[i] = value;
    } else {
      if (!hasOwn(parent, key)) throw new OpError(`path ${JSON.stringify(pointer)} does not exist`);
      setOwn(parent, key, value);
    }
  }

  /**
   * Compares with the expected value. Like the evanphx/json-patch library kube-apiserver uses,
   * a missing member of an existing object or array tests equal to null.
   */
  test(pointer: string, expected: unknown): void {
    const tokens = parsePointer(pointer);
    const r = this.find(tokens);
    if (!r.found) {
      if (tokens.length > 0 && expected === null) {
        this.parentOf(pointer, tokens);
        return;
      }
      throw new OpError(`path ${JSON.stringify(pointer)} does not exist`);
    }
    if (!this.equal(r.value, expected)) {
      throw new OpError(`test failed: the value at ${JSON.stringify(pointer)} is not ${JSON.stringify(expected)}`);
    }
  }

  /** deepEqual that charges every member and element it looks at. */
  private equal(a: unknown, b: unknown): boolean {
    if (a === b) return true;
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return false;
      this.charge(a.length);
      return a.every((e, i) => this.equal(e, b[i]));
    }
    if (!isRecord(a) || !isRecord(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    this.charge(ka.length + kb.length);
    return ka.length === kb.length && ka.every((k) => hasOwn(b, k) && this.equal(a[k], b[k]));
  }

  apply(op: JsonPatchOperation): void {
    switch (op.op) {
      case "add":
      case "replace": {
        this.checkDepth(parsePointer(op.path), op.value);
        const value = deepCopy(op.value);
        return op.op === "add" ? this.add(op.path, value) : this.replace(op.path, value);
      }
      case "remove":
        this.remove(op.path);
        return;
      case "move": {
        const from = op.from!;
        if (op.path !== from && op.path.startsWith(`${from}/`)) {
          throw new OpError(`a value cannot be moved into one of its children`);
        }
        const value = this.get(from);
        if (op.path === from) return;
        const to = parsePointer(op.path);
        if (to.length > parsePointer(from).length) this.checkDepth(to, value, { charge: true });
        return this.add(op.path, this.remove(from));
      }
      case "copy": {
        const value = this.get(op.from!);
        const budget = this.limits.maxCopyBytes - this.copied;
        const { bytes } = this.checkDepth(parsePointer(op.path), value, { maxBytes: budget });
        if (bytes > budget) {
          throw new OpError(`Unable to complete the copy, the accumulated size increase of copy is ${this.copied + bytes}, exceeding the limit ${this.limits.maxCopyBytes}`);
        }
        this.copied += bytes;
        return this.add(op.path, deepCopy(value));
      }
      case "test":
        return this.test(op.path, op.value);
    }
  }
}

/**
 * Applies an RFC 6902 patch (the parsed request body) to a copy of doc and returns the result;
 * doc and patch are not modified; doc must be within `limits.maxDepth`. Operations apply in order; the first failure aborts the patch.
 */
export function applyJsonPatch(doc: unknown, patch: unknown, limits: JsonPatchLimits = DEFAULT_JSON_PATCH_LIMITS): unknown {
  const ops = decodeJsonPatch(patch);
  const d = new Document(deepCopy(doc), limits);
  ops.forEach((raw, i) => {
    let desc = `JSON patch operation ${i}`;
    try {
      const op = validateOperation(raw);
      desc += ` (${op.op} ${JSON.stringify(op.path)})`;
      d.apply(op);
    } catch (err) {
      if (err instanceof OpError) throw unprocessable(`${desc} cannot be applied: ${err.message}`);
      throw err;
    }
  });
  return d.root;
}
