import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { simulateCreate, simulateUpdate } from "../testing.ts";
import { secretDefinition as def } from "./definition.ts";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const secret = (extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "s", namespace: "default" },
  ...extra,
});

describe("Secret", () => {
  it("merges stringData into data, drops it and defaults type to Opaque", () => {
    const out = simulateCreate(def, secret({ data: { a: b64("old"), b: b64("keep") }, stringData: { a: "new", c: "ç" } }));
    assert.deepEqual(out.errors, []);
    assert.deepEqual(out.obj.data, { a: b64("new"), b: b64("keep"), c: b64("ç") });
    assert.equal("stringData" in out.obj, false);
    assert.equal(out.obj.type, "Opaque");
  });

  it("also merges stringData on update", () => {
    const old = simulateCreate(def, secret({ data: { a: b64("1") } })).obj;
    const out = simulateUpdate(def, { ...old, stringData: { a: "2" } }, old);
    assert.deepEqual(out.obj.data, { a: b64("2") });
    assert.equal("stringData" in out.obj, false);
  });

  it("rejects data values that are not base64 without echoing them", () => {
    const out = simulateCreate(def, secret({ data: { token: "not base64!" } }));
    assert.deepEqual(out.errors, ['data.token: Invalid value: "<value omitted>": data.token in body must be of type byte']);
  });

  it("validates keys and total size", () => {
    const out = simulateCreate(def, secret({ data: { "bad/key": b64("x"), "..x": b64("y") } }));
    assert.deepEqual(out.errors, [
      `data[bad/key]: Invalid value: "bad/key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name', or 'KEY_NAME', or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
      `data[..x]: Invalid value: "..x": must not start with '..'`,
    ]);
    const big = simulateCreate(def, secret({ data: { a: Buffer.alloc(1024 * 1024 + 1).toString("base64") } }));
    assert.deepEqual(big.errors, ["data: Too long: must have at most 1048576 bytes"]);
  });

  it("checks the keys each secret type requires", () => {
    const errs = (type: string, data: Record<string, string> = {}) => simulateCreate(def, secret({ type, data })).errors;
    assert.deepEqual(errs("kubernetes.io/tls"), ["data[tls.crt]: Required value", "data[tls.key]: Required value"]);
    assert.deepEqual(errs("kubernetes.io/tls", { "tls.crt": b64("c"), "tls.key": b64("k") }), []);
    assert.deepEqual(errs("kubernetes.io/basic-auth"), ["data[username]: Required value", "data[password]: Required value"]);
    assert.deepEqual(errs("kubernetes.io/basic-auth", { username: "" }), []);
    assert.deepEqual(errs("kubernetes.io/ssh-auth"), ["data[ssh-privatekey]: Required value"]);
    assert.deepEqual(errs("kubernetes.io/service-account-token"), [
      "metadata.annotations[kubernetes.io/service-account.name]: Required value",
    ]);
    assert.deepEqual(errs("kubernetes.io/dockerconfigjson", { ".dockerconfigjson": b64("{}") }), []);
    assert.match(errs("kubernetes.io/dockerconfigjson", { ".dockerconfigjson": b64("{") })[0]!, /^data\[\.dockerconfigjson\]: Invalid value: "<secret contents redacted>": /);
  });

  it("keeps type immutable and immutable secrets' data fixed", () => {
    const old = simulateCreate(def, secret({ data: { a: b64("1") }, immutable: true })).obj;
    assert.deepEqual(simulateUpdate(def, { ...old, metadata: { ...old.metadata, labels: { x: "y" } } }, old).errors, []);
    assert.deepEqual(simulateUpdate(def, { ...old, data: { a: b64("2") } }, old).errors, [
      "data: Forbidden: field is immutable when `immutable` is set",
    ]);
    assert.deepEqual(simulateUpdate(def, { ...old, stringData: { a: "2" } }, old).errors, [
      "data: Forbidden: field is immutable when `immutable` is set",
    ]);
    assert.deepEqual(simulateUpdate(def, { ...old, immutable: false }, old).errors, [
      "immutable: Forbidden: field is immutable when `immutable` is set",
    ]);
    assert.deepEqual(simulateUpdate(def, { ...old, type: "kubernetes.io/tls", data: { a: b64("1") } }, old).errors.slice(0, 1), [
      'type: Invalid value: "kubernetes.io/tls": field is immutable',
    ]);
    const mutable = simulateCreate(def, secret({ data: { a: b64("1") } })).obj;
    assert.deepEqual(simulateUpdate(def, { ...mutable, data: { a: b64("2") } }, mutable).errors, []);
  });

  it("selects on type and prints TYPE, DATA and AGE", () => {
    const obj = simulateCreate(def, secret({ data: { a: b64("1"), b: b64("2") } })).obj;
    obj.metadata.creationTimestamp = "2024-01-01T00:00:00Z";
    assert.equal(def.fieldSelectors!.type!(obj), "Opaque");
    assert.deepEqual(def.table!.columns.map((c) => c.name), ["Type", "Data", "Age"]);
    assert.deepEqual(def.table!.cells(obj, new Date("2024-01-01T00:05:30Z")), ["Opaque", 2, "5m30s"]);
  });
});
