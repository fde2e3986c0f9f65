import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { simulateCreate, simulateStatusUpdate, simulateUpdate } from "../testing.ts";
import { namespaceDefinition as def } from "./definition.ts";

const ns = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: "v1", kind: "Namespace", metadata: { name }, ...extra });

describe("Namespace", () => {
  it("is cluster-scoped with a status subresource and strategic merge patch", () => {
    assert.equal(def.namespaced, false);
    assert.equal(def.hasStatus, true);
    assert.equal(def.strategicMergePatch, true);
    assert.deepEqual(def.shortNames, ["ns"]);
    // Names (and generateName prefixes) are DNS-1123 labels for the generic ObjectMeta validation.
    assert.deepEqual(def.nameValidator!("team-a", false), []);
    assert.deepEqual(def.nameValidator!("a.b", false), ["must not contain dots"]);
    assert.deepEqual(def.nameValidator!("team-", true), []);
  });

  it("starts Active with the kubernetes finalizer, ignoring a client-sent status", () => {
    const out = simulateCreate(def, ns("team-a", { status: { phase: "Terminating" } }));
    assert.deepEqual(out.errors, []);
    assert.deepEqual(out.obj.status, { phase: "Active" });
    assert.deepEqual(out.obj.spec, { finalizers: ["kubernetes"] });
  });

  it("keeps client finalizers and appends kubernetes once", () => {
    const out = simulateCreate(def, ns("team-a", { spec: { finalizers: ["example.com/x", "kubernetes"] } }));
    assert.deepEqual(out.obj.spec, { finalizers: ["example.com/x", "kubernetes"] });
    const out2 = simulateCreate(def, ns("team-b", { spec: { finalizers: ["example.com/x"] } }));
    assert.deepEqual(out2.obj.spec, { finalizers: ["example.com/x", "kubernetes"] });
  });

  it("requires a DNS-1123 label name and qualified finalizers", () => {
    const out = simulateCreate(def, ns("a.b", { spec: { finalizers: ["custom"] } }));
    assert.deepEqual(out.errors, [
      'metadata.name: Invalid value: "a.b": must not contain dots',
      'spec.finalizers[0]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ]);
    assert.match(simulateCreate(def, ns("Upper")).errors.join("\n"), /metadata\.name: Invalid value: "Upper": a lowercase RFC 1123 label/);
  });

  it("defaults and validates status.phase on status updates", () => {
    const old = simulateCreate(def, ns("team-a")).obj;
    const empty = simulateStatusUpdate(def, { ...old, status: {} }, old);
    assert.deepEqual(empty.obj.status, { phase: "Active" });
    const bad = simulateStatusUpdate(def, { ...old, status: { phase: "Gone" } }, old);
    assert.deepEqual(bad.errors, ['status.phase: Unsupported value: "Gone": supported values: "Active", "Terminating"']);
  });

  it("keeps status on main-resource updates and lets the finalizer be released", () => {
    const old = simulateCreate(def, ns("team-a")).obj;
    old.status = { phase: "Terminating" };
    const out = simulateUpdate(def, { ...old, spec: { finalizers: [] }, status: { phase: "Active" } }, old);
    assert.deepEqual(out.errors, []);
    assert.deepEqual(out.obj.status, { phase: "Terminating" });
    assert.deepEqual(out.obj.spec, { finalizers: [] });
  });

  it("selects on status.phase and prints STATUS and AGE", () => {
    const obj = ns("team-a", { status: { phase: "Terminating" } });
    obj.metadata.creationTimestamp = "2024-01-01T00:00:00Z";
    assert.equal(def.fieldSelectors!["status.phase"]!(obj), "Terminating");
    assert.deepEqual(def.table!.columns.map((c) => c.name), ["Status", "Age"]);
    assert.deepEqual(def.table!.cells(obj, new Date("2024-01-03T05:00:00Z")), ["Terminating", "2d5h"]);
  });
});
