import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeOpenAPIV2, encodeSchema } from "./openapi-v2-protobuf.ts";

type Field = { num: number; wire: number; value: Buffer | bigint };

/** A protobuf reader just good enough for the test: every field of one message. */
function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[pos++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
      shift += 7n;
    }
  };
  while (pos < buf.length) {
    const key = Number(varint());
    const num = key >> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ num, wire, value: varint() });
    else if (wire === 1) {
      out.push({ num, wire, value: buf.subarray(pos, pos + 8) });
      pos += 8;
    } else if (wire === 2) {
      const len = Number(varint());
      out.push({ num, wire, value: buf.subarray(pos, pos + len) });
      pos += len;
    } else throw new Error(`wire type ${wire}`);
  }
  return out;
}
const bytes = (f: Field[], num: number): Buffer[] => f.filter((x) => x.num === num).map((x) => x.value as Buffer);
const text = (f: Field[], num: number): string[] => bytes(f, num).map((b) => b.toString("utf8"));

describe("OpenAPI v2 as gnostic protobuf", () => {
  it("encodes swagger, info and the definitions by name", () => {
    const doc = encodeOpenAPIV2({
      swagger: "2.0",
      info: { title: "Kubernetes", version: "v1.30.0" },
      paths: { "/api/v1/x": {} },
      definitions: { "io.k8s.api.core.v1.ConfigMap": { type: "object" }, "io.k8s.api.core.v1.Secret": { type: "object" } },
    });
    const top = fields(doc);
    assert.deepEqual(text(top, 1), ["2.0"]);
    assert.deepEqual(text(fields(bytes(top, 2)[0]!), 1), ["Kubernetes"]);
    assert.equal(bytes(top, 8).length, 0, "no paths in the protobuf form");
    const named = fields(bytes(top, 9)[0]!).map((f) => fields(f.value as Buffer));
    assert.deepEqual(named.map((n) => text(n, 1)[0]), ["io.k8s.api.core.v1.ConfigMap", "io.k8s.api.core.v1.Secret"]);
  });

  it("encodes a schema's fields with gnostic's numbers; vendor extensions and enums as YAML", () => {
    const s = fields(
      encodeSchema({
        description: "d",
        type: "object",
        required: ["a"],
        properties: { a: { type: "integer", format: "int32", minimum: 1.5, maxLength: 3 }, b: { $ref: "#/definitions/B" } },
        additionalProperties: { type: "string" },
        items: { type: "string" },
        enum: ["x"],
        "x-kubernetes-group-version-kind": [{ group: "", kind: "ConfigMap", version: "v1" }],
      }),
    );
    assert.deepEqual(text(s, 4), ["d"]);
    assert.deepEqual(text(s, 19), ["a"]);
    assert.deepEqual(text(fields(bytes(s, 22)[0]!), 1), ["object"]);
    const props = fields(bytes(s, 25)[0]!).map((f) => fields(f.value as Buffer));
    assert.deepEqual(props.map((p) => text(p, 1)[0]), ["a", "b"]);
    const a = fields(bytes(props[0]!, 2)[0]!);
    assert.deepEqual([text(a, 2)[0], (bytes(a, 9)[0] as Buffer).readDoubleLE(), a.find((f) => f.num === 11)?.value], ["int32", 1.5, 3n]);
    assert.deepEqual(text(fields(bytes(props[1]!, 2)[0]!), 1), ["#/definitions/B"]);
    const additional = fields(bytes(s, 21)[0]!);
    assert.deepEqual(text(fields(bytes(additional, 1)[0]!), 22).length, 1);
    assert.deepEqual(text(fields(bytes(s, 20)[0]!), 2), ['"x"']);
    const ext = fields(bytes(s, 31)[0]!);
    assert.deepEqual(text(ext, 1), ["x-kubernetes-group-version-kind"]);
    assert.deepEqual(JSON.parse(text(fields(bytes(ext, 2)[0]!), 2)[0]!), [{ group: "", kind: "ConfigMap", version: "v1" }]);
    assert.equal(bytes(fields(bytes(s, 23)[0]!), 1).length, 1, "items as ItemsItem { schema }");
  });
});
