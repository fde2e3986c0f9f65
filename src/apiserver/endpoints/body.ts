// Request bodies: read with a size limit (413 past it), decode JSON, YAML or protobuf (400 when
// malformed or nested more than MAX_NESTING_DEPTH deep), and check an object body against the
// resource the URL names.
import type { IncomingMessage } from "node:http";
import { CORE_SCHEMA, load as loadYaml, type LoadOptions } from "js-yaml";
import { depthMessage, jsonTextDepth, MAX_NESTING_DEPTH, measureJson } from "../../apimachinery/json/bounds.ts";
import { duplicateFields } from "../../apimachinery/json/duplicates.ts";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { newBadRequest, newRequestEntityTooLarge } from "../../apimachinery/errors.ts";
import { type BodyFormat } from "./negotiation.ts";
import { decodeProtobufObject } from "./protobuf.ts";
import { isRecord } from "../../utils/guards.ts";

export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

export function tooLarge(limit: number) {
  return newRequestEntityTooLarge(`Request entity too large: limit is ${limit}`);
}

/** Reads the whole body; rejects with 413 as soon as it exceeds `limit` bytes (Content-Length is checked first). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    // Listeners inline (unnamed): every request reads its body through them.
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.once("end", () => {
      if (done) return;
      done = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.once("error", (err) => {
      if (done) return;
      done = true;
      reject(err);
    });
  });
}

/**
 * Decodes a body; an empty body is undefined. Malformed input is a 400 naming the decoder's
 * complaint. With `strict` (fieldValidation=Strict) duplicate fields are a 400 too. Nesting deeper
 * than MAX_NESTING_DEPTH is a 400 before anything walks the value recursively: JSON text is
 * measured before it is parsed, YAML by the parser itself (js-yaml's maxDepth; the yaml package
 * recurses and lexes the whole text first), and every decoded value once more (YAML aliases and
 * protobuf's embedded JSON can nest further).
 */
export function decodeBody(buf: Buffer, format: BodyFormat, strict = false): unknown {
  const value = decodeFormat(buf, format, strict);
  // JSON text was measured before parsing, and parsed it is no larger than the text.
  if (value === null || typeof value !== "object" || format === "json") return value;
  // YAML aliases share values: expanded they could be far larger than the text (billion laughs).
  const m = measureJson(value, { maxDepth: MAX_NESTING_DEPTH, maxBytes: MAX_DECODED_BYTES });
  if (m.exceeded === "depth") throw tooDeep();
  if (m.exceeded) throw newRequestEntityTooLarge(`Request entity too large: the decoded body exceeds ${MAX_DECODED_BYTES} bytes`);
  return value;
}

/** The largest a decoded body may be as JSON (YAML takes fewer bytes than its JSON). */
export const MAX_DECODED_BYTES = 2 * DEFAULT_MAX_BODY_BYTES;

function tooDeep() {
  return newBadRequest(`the request body is nested too deeply: ${depthMessage()}`);
}

function decodeFormat(buf: Buffer, format: BodyFormat, strict: boolean): unknown {
  if (format === "protobuf") return buf.length === 0 ? undefined : decodeProtobufObject(buf);
  const text = buf.toString("utf8");
  if (!text.trim()) return undefined;
  if (format === "json") {
    if (jsonTextDepth(text) > MAX_NESTING_DEPTH) throw tooDeep();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text) as unknown;
    } catch (err) {
      throw newBadRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
    }
    const duplicates = strict ? duplicateFields(text) : [];
    if (duplicates.length) throw newBadRequest(`strict decoding error: ${duplicates.map((f) => `duplicate field ${JSON.stringify(f)}`).join(", ")}`);
    return parsed;
  }
  return decodeYaml(text, strict);
}

/**
 * YAML 1.2 core schema (timestamps and binaries stay strings, as when YAML becomes JSON), one
 * document; duplicate keys are an error only with `strict` (otherwise the last one wins).
 */
function decodeYaml(text: string, strict: boolean): unknown {
  // maxDepth (js-yaml 4.1.1 and later; not yet in its type definitions): collections may nest
  // fewer than maxDepth levels.
  const options: LoadOptions & { maxDepth: number } = { schema: CORE_SCHEMA, json: !strict, maxDepth: MAX_NESTING_DEPTH + 1 };
  try {
    return loadYaml(text, options);
  } catch (err) {
    const message = (err as Error).message ?? String(err);
    if (/exceeded maxDepth/.test(message) || err instanceof RangeError) throw tooDeep();
    throw newBadRequest(`error converting YAML to JSON: ${message.split("\n")[0]}`);
  }
}

export interface ExpectedObject {
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
  /** The namespace in the URL ("" for cluster scope). */
  namespace: string;
  /** The name in the URL (update), if any. */
  name?: string;
}

/**
 * Checks a decoded create/update body against the URL: it must be an object of the URL's
 * group/version and kind (missing apiVersion/kind are filled in), and its namespace and name
 * must match the URL's (missing ones are filled in; cluster-scoped objects lose theirs).
 */
export function checkObjectBody(body: unknown, exp: ExpectedObject): KubeObject {
  if (!isRecord(body)) throw newBadRequest("the body of the request must be a JSON or YAML object");
  const gv = exp.group ? `${exp.group}/${exp.version}` : exp.version;
  const apiVersion = body.apiVersion;
  if (apiVersion !== undefined && apiVersion !== "" && apiVersion !== gv) {
    throw newBadRequest(`the API version in the data (${String(apiVersion)}) does not match the expected API version (${gv})`);
  }
  const kind = body.kind;
  if (kind !== undefined && kind !== "" && kind !== exp.kind) {
    throw newBadRequest(`the kind in the data (${String(kind)}) does not match the expected kind (${exp.kind})`);
  }
  if (body.metadata !== undefined && body.metadata !== null && !isRecord(body.metadata)) {
    throw newBadRequest("metadata must be an object");
  }
  const obj = body as KubeObject;
  obj.apiVersion = gv;
  obj.kind = exp.kind;
  obj.metadata = (isRecord(body.metadata) ? body.metadata : {}) as KubeObject["metadata"];
  const meta = obj.metadata;
  if (exp.name !== undefined) {
    if (meta.name && meta.name !== exp.name) {
      throw newBadRequest(`the name of the object (${meta.name}) does not match the name on the URL (${exp.name})`);
    }
    meta.name = exp.name;
  }
  if (exp.namespaced) {
    if (meta.namespace && exp.namespace && meta.namespace !== exp.namespace) {
      throw newBadRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    if (exp.namespace) meta.namespace = exp.namespace;
  } else {
    delete meta.namespace;
  }
  return obj;
}
