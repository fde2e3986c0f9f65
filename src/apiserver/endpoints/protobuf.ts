// Decoding of Kubernetes protobuf request bodies (application/vnd.kubernetes.protobuf).
// kubectl >= 1.32 sends its typed-client writes in protobuf (create namespace/configmap/secret/
// serviceaccount/rolebinding, create token, auth can-i, auth whoami) and does not fall back to JSON
// on 415, so the kinds it creates that way are decoded here into the JSON shape (as Go's
// json.Marshal would print them: empty singular fields omitted). Other kinds stay 415.
//
// Wire format: the 4 magic bytes "k8s\0", then a runtime.Unknown message
// { typeMeta: { apiVersion = 1, kind = 2 } = 1, raw = 2, contentEncoding = 3, contentType = 4 },
// where raw is the object in the kind's generated.proto layout.
import { newBadRequest, newUnsupportedMediaType } from "../../apimachinery/errors.ts";
import { depthMessage, jsonTextDepth, MAX_NESTING_DEPTH } from "../../apimachinery/json/bounds.ts";
import { metaTime, microTime } from "../../utils/time.ts";
import { ACCEPTED_BODY_TYPES } from "./negotiation.ts";
import { type Field, type FieldType, type Message, PROTOBUF_KINDS } from "./protobuf-types.ts";

export const PROTOBUF_CONTENT_TYPE = "application/vnd.kubernetes.protobuf";
const MAGIC = [0x6b, 0x38, 0x73, 0x00];

class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length || shift > 63n) throw new Error("truncated varint");
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  }
  bytes(): Uint8Array {
    const len = Number(this.varint());
    if (this.pos + len > this.buf.length) throw new Error("truncated length-delimited field");
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.bytes();
    else if (wireType === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wireType}`);
    if (this.pos > this.buf.length) throw new Error("truncated field");
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function rfc3339(seconds: number, nanos: number, micro: boolean): string {
  // Whole microseconds (Go truncates), which microTime gives back exactly.
  return micro ? microTime(seconds * 1000 + Math.floor(nanos / 1000) / 1000) : metaTime(seconds * 1000);
}

function decodeTime(buf: Uint8Array, micro: boolean): string | undefined {
  const r = new Reader(buf);
  let seconds = 0;
  let nanos = 0;
  while (!r.done) {
    const tag = Number(r.varint());
    if (tag === (1 << 3)) seconds = Number(BigInt.asIntN(64, r.varint()));
    else if (tag === (2 << 3)) nanos = Number(BigInt.asIntN(32, r.varint()));
    else r.skip(tag & 7);
  }
  return seconds === 0 && nanos === 0 ? undefined : rfc3339(seconds, nanos, micro);
}

/** managedFields' fieldsV1: raw JSON bytes, bounded in nesting depth like any JSON body. */
function decodeFieldsV1(bytes: Uint8Array, f: Field): unknown {
  const raw = decodeMessage(bytes, { 1: { name: "raw", type: "bytes" } }).raw;
  if (raw === undefined) return undefined;
  const json = Buffer.from(String(raw), "base64").toString("utf8");
  if (jsonTextDepth(json) > MAX_NESTING_DEPTH) throw new Error(`field ${f.name}: ${depthMessage()}`);
  return JSON.parse(json) as unknown;
}

/** One map entry as [key, value]; a missing value is the value type's empty value. */
function decodeMapEntry(bytes: Uint8Array, valueType: Extract<FieldType, { map: unknown }>["map"]): [string, unknown] {
  const entry = decodeMessage(bytes, { 1: { name: "key", type: "string" }, 2: { name: "value", type: valueType, keep: true } });
  const empty = valueType === "string" || valueType === "bytes" ? "" : valueType === "stringList" ? [] : {};
  return [String(entry.key ?? ""), entry.value ?? empty];
}

/** One scalar or message value of field f, read at the reader's position. */
function readValue(r: Reader, f: Field, wireType: number): unknown {
  const t = f.type;
  if (t === "bool" || t === "int") {
    if (wireType !== 0) throw new Error(`field ${f.name}: expected a varint`);
    const v = r.varint();
    return t === "bool" ? v !== 0n : Number(BigInt.asIntN(64, v));
  }
  if (wireType !== 2) throw new Error(`field ${f.name}: expected a length-delimited value`);
  const bytes = r.bytes();
  if (t === "string") return utf8.decode(bytes);
  if (t === "bytes") return Buffer.from(bytes).toString("base64");
  if (t === "time" || t === "microtime") return decodeTime(bytes, t === "microtime");
  if (t === "stringList") return decodeMessage(bytes, { 1: { name: "items", type: "string", repeated: true } }).items ?? [];
  if (t === "intOrString") {
    const v = decodeMessage(bytes, { 1: { name: "type", type: "int" }, 2: { name: "intVal", type: "int", keep: true }, 3: { name: "strVal", type: "string" } });
    return v.type === 1 ? (v.strVal ?? "") : (v.intVal ?? 0);
  }
  if (t === "fieldsV1") return decodeFieldsV1(bytes, f);
  if (typeof t === "object" && "map" in t) return decodeMapEntry(bytes, t.map);
  return decodeMessage(bytes, t.message());
}

/** Decodes a message; singular empty strings, zero numbers and zero times are omitted unless `keep`. */
export function decodeMessage(buf: Uint8Array, msg: Message): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const r = new Reader(buf);
  while (!r.done) {
    const tag = r.varint();
    const fieldNo = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    const f = msg[fieldNo];
    if (!f) {
      r.skip(wireType);
      continue;
    }
    const value = readValue(r, f, wireType);
    if (typeof f.type === "object" && "map" in f.type) {
      const [k, v] = value as [string, unknown];
      ((out[f.name] ??= {}) as Record<string, unknown>)[k] = v;
    } else if (f.repeated) {
      ((out[f.name] ??= []) as unknown[]).push(value);
    } else if (value !== undefined && (f.keep || (value !== "" && value !== 0))) {
      out[f.name] = value;
    }
  }
  return out;
}

const UNKNOWN: Message = {
  1: { name: "typeMeta", type: { message: () => ({ 1: { name: "apiVersion", type: "string" }, 2: { name: "kind", type: "string" } }) } },
  2: { name: "raw", type: "bytes" },
  3: { name: "contentEncoding", type: "string" },
  4: { name: "contentType", type: "string" },
};

/** Decodes a protobuf request body into a JSON object; 415 for kinds without a known layout, 400 when malformed. */
export function decodeProtobufObject(buf: Buffer): Record<string, unknown> {
  if (buf.length < 4 || MAGIC.some((b, i) => buf[i] !== b)) throw newBadRequest("protobuf body does not start with the Kubernetes magic number");
  let envelope: Record<string, unknown>;
  try {
    envelope = decodeMessage(buf.subarray(4), UNKNOWN);
  } catch (err) {
    throw newBadRequest(`unable to decode protobuf body: ${(err as Error).message}`);
  }
  const tm = (envelope.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const layout = PROTOBUF_KINDS[`${tm.apiVersion ?? ""}/${tm.kind ?? ""}`];
  if (!layout) throw newUnsupportedMediaType(PROTOBUF_CONTENT_TYPE, ACCEPTED_BODY_TYPES.filter((t) => t !== PROTOBUF_CONTENT_TYPE));
  if (envelope.contentEncoding) throw newUnsupportedMediaType(`${PROTOBUF_CONTENT_TYPE} (encoding ${String(envelope.contentEncoding)})`, ACCEPTED_BODY_TYPES);
  const raw = Buffer.from(String(envelope.raw ?? ""), "base64");
  try {
    return { apiVersion: tm.apiVersion, kind: tm.kind, ...decodeMessage(raw, layout) };
  } catch (err) {
    throw newBadRequest(`unable to decode protobuf ${tm.kind ?? "object"}: ${(err as Error).message}`);
  }
}
