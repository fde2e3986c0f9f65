import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { FieldSet } from "./fieldset.ts";
import { applyOwnership, ConflictsError, type ManagedSets, updateOwnership, type UpdaterOptions } from "./updater.ts";

const str: JSONSchemaProps = { type: "string" };
const schema: JSONSchemaProps = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        replicas: { type: "integer" },
        tags: { type: "array", items: str, "x-kubernetes-list-type": "set" },
        args: { type: "array", items: str },
        selector: { type: "object", additionalProperties: str, "x-kubernetes-map-type": "atomic" },
        labels: { type: "object", additionalProperties: str },
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["port", "protocol"],
          items: { type: "object", properties: { port: { type: "integer" }, protocol: { type: "string", default: "TCP" }, name: str } },
        },
      },
    },
  },
};
const o: UpdaterOptions = { schema, apiVersion: "v1", ignored: () => false };

function fields(m: ManagedSets, id: string): unknown {
  return m.get(id)?.set.toFieldsV1();
}

function apply(live: unknown, config: unknown, m: ManagedSets, id: string, force = false): unknown {
  return applyOwnership(live, config, m, id, force, o);
}

void describe("apply: merge and ownership", () => {
  void it("owns exactly what it applies: leaves, set items, map keys, atomic lists and maps, list items by key", () => {
    const m: ManagedSets = new Map();
    const out = apply({}, { spec: { replicas: 1, tags: ["a"], args: ["x", "y"], selector: { k: "v" }, labels: { l: "1" }, ports: [{ port: 80 }] } }, m, "a");
    assert.deepEqual(out, { spec: { replicas: 1, tags: ["a"], args: ["x", "y"], selector: { k: "v" }, labels: { l: "1" }, ports: [{ port: 80 }] } });
    assert.deepEqual(fields(m, "a"), {
      "f:spec": {
        "f:args": {},
        "f:labels": { "f:l": {} },
        "f:ports": { 'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:port": {} } },
        "f:replicas": {},
        "f:selector": {},
        "f:tags": { 'v:"a"': {} },
      },
    });
  });

  void it("sets union, maps merge key by key, atomic lists and maps are replaced whole", () => {
    const live = { spec: { tags: ["a"], args: ["x"], selector: { k: "v" }, labels: { l: "1" } } };
    const out = apply(live, { spec: { tags: ["b"], args: ["y"], selector: { j: "w" }, labels: { m: "2" } } }, new Map(), "b");
    assert.deepEqual(out, { spec: { tags: ["a", "b"], args: ["y"], selector: { j: "w" }, labels: { l: "1", m: "2" } } });
  });

  void it("associative lists merge item by item and keep live items the configuration does not name", () => {
    const live = { spec: { ports: [{ port: 80, protocol: "TCP", name: "http" }, { port: 443, protocol: "TCP", name: "https" }] } };
    const out = apply(live, { spec: { ports: [{ port: 8080, name: "alt" }, { port: 443, name: "tls" }] } }, new Map(), "b");
    assert.deepEqual(out, {
      spec: { ports: [{ port: 80, protocol: "TCP", name: "http" }, { port: 8080, name: "alt" }, { port: 443, protocol: "TCP", name: "tls" }] },
    });
  });

  void it("a second apply removes what the manager no longer applies, unless another manager owns it", () => {
    const m: ManagedSets = new Map();
    let live = apply({}, { spec: { replicas: 1, labels: { a: "1", b: "2" }, tags: ["x", "y"], ports: [{ port: 1 }, { port: 2 }] } }, m, "a");
    assert.equal(apply(live, { spec: { labels: { b: "2" } } }, m, "b"), undefined, "b applies what is already there");
    live = apply(live, { spec: { labels: {} } }, m, "a");
    assert.deepEqual(live, { spec: { labels: { b: "2" } } });
    assert.deepEqual(fields(m, "a"), { "f:spec": { "f:labels": {} } }, "an empty map is owned as a whole");
  });

  void it("fields taken by an updater survive the applier dropping them", () => {
    const m: ManagedSets = new Map();
    const live = apply({}, { spec: { replicas: 1, labels: { a: "1" } } }, m, "a");
    const edited = { spec: { replicas: 3, labels: { a: "1" } } };
    updateOwnership(live, edited, m, "editor", o);
    assert.deepEqual(fields(m, "editor"), { "f:spec": { "f:replicas": {} } });
    assert.equal(m.get("a")?.set.has(["f:spec", "f:replicas"]), false, "the updater took replicas from the applier");
    const out = apply(edited, { spec: { labels: { a: "1" } } }, m, "a");
    assert.equal(out, undefined, "nothing changes: replicas belongs to the editor");
  });

  void it("conflicts: another manager's field with a different value; same value is shared; force takes it", () => {
    const m: ManagedSets = new Map();
    const live = apply({}, { spec: { replicas: 1, labels: { a: "1" } } }, m, "a");
    assert.equal(apply(live, { spec: { labels: { a: "1" } } }, m, "b"), undefined, "same value: no conflict, shared");
    assert.equal(m.get("a")?.set.has(["f:spec", "f:labels", "f:a"]), true);
    assert.equal(m.get("b")?.set.has(["f:spec", "f:labels", "f:a"]), true);
    assert.throws(
      () => apply(live, { spec: { replicas: 2, labels: { a: "2" } } }, m, "b"),
      (err: unknown) => {
        assert.ok(err instanceof ConflictsError);
        assert.deepEqual(
          err.conflicts.map((c) => [c.manager, c.path.join(" ")]),
          [
            ["a", "f:spec f:replicas"],
            ["a", "f:spec f:labels f:a"],
          ],
        );
        return true;
      },
    );
    const out = apply(live, { spec: { replicas: 2, labels: { a: "2" } } }, m, "b", true);
    assert.deepEqual(out, { spec: { replicas: 2, labels: { a: "2" } } });
    assert.equal(m.has("a"), false, "forced: the other manager lost both fields, so its entry is gone");
    assert.deepEqual(fields(m, "b"), { "f:spec": { "f:labels": { "f:a": {} }, "f:replicas": {} } });
  });

  void it("an updater never conflicts and takes what it changes", () => {
    const m: ManagedSets = new Map();
    const live = apply({}, { spec: { replicas: 1 } }, m, "a");
    updateOwnership(live, { spec: { replicas: 5 } }, m, "u", o);
    assert.equal(m.has("a"), false, "the applier owned only replicas");
    assert.deepEqual(fields(m, "u"), { "f:spec": { "f:replicas": {} } });
  });

  void it("removed fields leave every manager's set", () => {
    const m: ManagedSets = new Map([["x", { set: FieldSet.of(["f:spec", "f:replicas"], ["f:spec", "f:args"]), apiVersion: "v1", applied: false }]]);
    updateOwnership({ spec: { replicas: 1, args: ["a"] } }, { spec: { args: ["a"] } }, m, "u", o);
    assert.deepEqual(fields(m, "x"), { "f:spec": { "f:args": {} } });
    assert.equal(m.has("u"), false, "a removal alone owns nothing");
  });

  void it("ignored top-level fields are neither owned nor conflicting", () => {
    const io: UpdaterOptions = { ...o, ignored: (pe) => pe === "f:status" };
    const m: ManagedSets = new Map([["s", { set: FieldSet.of(["f:status", "f:phase"]), apiVersion: "v1", applied: false }]]);
    applyOwnership({ status: { phase: "A" } }, { spec: { replicas: 1 }, status: { phase: "B" } }, m, "a", false, io);
    assert.deepEqual(fields(m, "a"), { "f:spec": { "f:replicas": {} } });
    assert.deepEqual(fields(m, "s"), { "f:status": { "f:phase": {} } });
  });

  void it("an update of a list with duplicate keys owns the duplicated item whole; untyped objects are granular maps with atomic lists", () => {
    const m: ManagedSets = new Map();
    const dup = { spec: { ports: [{ port: 1, name: "a" }, { port: 1, name: "b" }, { port: 2 }] } };
    updateOwnership({}, dup, m, "u", o);
    assert.deepEqual(fields(m, "u"), {
      "f:spec": {
        ".": {},
        "f:ports": { ".": {}, 'k:{"port":1,"protocol":"TCP"}': {}, 'k:{"port":2,"protocol":"TCP"}': { ".": {}, "f:port": {} } },
      },
    });
    const untyped: UpdaterOptions = { ...o, schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } };
    const u: ManagedSets = new Map();
    updateOwnership({}, { a: { b: 1, c: [1, 2] } }, u, "x", untyped);
    assert.deepEqual(fields(u, "x"), { "f:a": { ".": {}, "f:b": {}, "f:c": {} } });
  });
});
