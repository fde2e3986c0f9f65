// The swagger 2.0 document as gnostic's openapi.v2.Document protobuf (OpenAPIv2.proto), the only
// form kubectl reads from /openapi/v2 (client-go's OpenAPISchema asks for protobuf and unmarshals
// it; `kubectl explain --output=plaintext-openapiv2` and older kubectl's validation use it).
// Encoded: swagger, info, and definitions with every Schema field kube-openapi reads, vendor
// extensions (x-kubernetes-group-version-kind ...) as YAML (JSON is YAML) in Any.yaml. Paths are
// only in the JSON document: kubectl's OpenAPI v2 users look at definitions.
import { isRecord } from "../../utils/guards.ts";
import type { Schema } from "./openapi-schemas.ts";

type Bytes = Buffer;

function varint(n: number | bigint): number[] {
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n;
  const out: number[] = [];
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

const tag = (num: number, wire: number): number[] => varint((num << 3) | wire);

function msg(num: number, payload: Bytes): Bytes {
  return Buffer.concat([Buffer.from([...tag(num, 2), ...varint(payload.length)]), payload]);
}

function str(num: number, s: unknown): Bytes {
  return typeof s === "string" && s !== "" ? msg(num, Buffer.from(s, "utf8")) : Buffer.alloc(0);
}

function bool(num: number, b: unknown): Bytes {
  return b === true ? Buffer.from([...tag(num, 0), 1]) : Buffer.alloc(0);
}

function int(num: number, n: unknown): Bytes {
  return typeof n === "number" && Number.isInteger(n) && n !== 0 ? Buffer.from([...tag(num, 0), ...varint(n)]) : Buffer.alloc(0);
}

function double(num: number, n: unknown): Bytes {
  if (typeof n !== "number" || n === 0) return Buffer.alloc(0);
  const b = Buffer.alloc(8);
  b.writeDoubleLE(n);
  return Buffer.concat([Buffer.from(tag(num, 1)), b]);
}

/** openapi.v2.Any { yaml = 2 } */
function any(value: unknown): Bytes {
  return str(2, JSON.stringify(value));
}

/** NamedAny { name = 1, value = 2 } */
function namedAny(name: string, value: unknown): Bytes {
  return Buffer.concat([str(1, name), msg(2, any(value))]);
}

const isObject = (v: unknown): v is Schema => isRecord(v);

/** openapi.v2.Schema */
export function encodeSchema(s: Schema): Bytes {
  const parts: Bytes[] = [
    str(1, s.$ref),
    str(2, s.format),
    str(3, s.title),
    str(4, s.description),
    s.default !== undefined ? msg(5, any(s.default)) : Buffer.alloc(0),
    double(6, s.multipleOf),
    double(7, s.maximum),
    bool(8, s.exclusiveMaximum),
    double(9, s.minimum),
    bool(10, s.exclusiveMinimum),
    int(11, s.maxLength),
    int(12, s.minLength),
    str(13, s.pattern),
    int(14, s.maxItems),
    int(15, s.minItems),
    bool(16, s.uniqueItems),
    int(17, s.maxProperties),
    int(18, s.minProperties),
  ];
  if (Array.isArray(s.required)) for (const r of s.required) parts.push(str(19, r));
  if (Array.isArray(s.enum)) for (const e of s.enum) parts.push(msg(20, any(e)));
  if (isObject(s.additionalProperties)) parts.push(msg(21, msg(1, encodeSchema(s.additionalProperties))));
  else if (typeof s.additionalProperties === "boolean") parts.push(msg(21, Buffer.from([...tag(2, 0), s.additionalProperties ? 1 : 0])));
  const types = Array.isArray(s.type) ? s.type : typeof s.type === "string" ? [s.type] : [];
  if (types.length) parts.push(msg(22, Buffer.concat(types.map((t: unknown) => str(1, t)))));
  const items = Array.isArray(s.items) ? s.items : isObject(s.items) ? [s.items] : [];
  if (items.length) parts.push(msg(23, Buffer.concat(items.filter(isObject).map((i) => msg(1, encodeSchema(i))))));
  if (Array.isArray(s.allOf)) for (const a of s.allOf) if (isObject(a)) parts.push(msg(24, encodeSchema(a)));
  if (isObject(s.properties)) parts.push(msg(25, namedSchemas(s.properties)));
  parts.push(str(26, s.discriminator), bool(27, s.readOnly));
  if (s.example !== undefined) parts.push(msg(30, any(s.example)));
  for (const [k, v] of Object.entries(s)) if (k.startsWith("x-")) parts.push(msg(31, namedAny(k, v)));
  return Buffer.concat(parts);
}

/** Properties / Definitions { repeated NamedSchema additional_properties = 1 } */
function namedSchemas(map: Schema): Bytes {
  const out: Bytes[] = [];
  for (const [name, value] of Object.entries(map)) {
    if (isObject(value)) out.push(msg(1, Buffer.concat([str(1, name), msg(2, encodeSchema(value))])));
  }
  return Buffer.concat(out);
}

/** openapi.v2.Document from a swagger 2.0 JSON document (swagger, info, definitions). */
export function encodeOpenAPIV2(doc: Schema): Bytes {
  const info = isObject(doc.info) ? Buffer.concat([str(1, doc.info.title), str(2, doc.info.version), str(3, doc.info.description)]) : Buffer.alloc(0);
  const parts: Bytes[] = [str(1, doc.swagger), msg(2, info)];
  if (isObject(doc.definitions)) parts.push(msg(9, namedSchemas(doc.definitions)));
  return Buffer.concat(parts);
}
