import { test } from "node:test";
import assert from "node:assert/strict";
import type { ExtensionBastion } from "../../../apis/extensions/v1alpha1/types.ts";
import { defaultTrigger, typeAndClass } from "./predicates.ts";
import { operationType } from "./reconciler.ts";

function ext(mut: (e: ExtensionBastion) => void = () => undefined): ExtensionBastion {
  const e: ExtensionBastion = {
    metadata: { name: "b", namespace: "shoot--p--s", generation: 1 },
    spec: { type: "local", userData: "eA==", ingress: [{ ipBlock: { cidr: "0.0.0.0/0" } }] },
    status: { lastOperation: { type: "Create", state: "Succeeded", progress: 100, description: "", lastUpdateTime: "2026-01-01T00:00:00Z" } },
  };
  mut(e);
  return e;
}
const op = (value: string) => (e: ExtensionBastion) => (e.metadata.annotations = { "gardener.cloud/operation": value });
const deleting = (e: ExtensionBastion) => (e.metadata.deletionTimestamp = "2026-01-01T00:00:00Z");

test("only the provider's type and served classes (unset class means shoot)", () => {
  const p = typeAndClass("local", ["shoot"]);
  assert.equal(p.create!(ext()), true);
  assert.equal(p.create!(ext((e) => (e.spec.type = "aws"))), false);
  assert.equal(p.create!(ext((e) => (e.spec.class = "seed"))), false);
  assert.equal(p.create!(ext((e) => (e.spec.class = "shoot"))), true);
  assert.equal(typeAndClass("local", ["seed"]).create!(ext((e) => (e.spec.class = "seed"))), true);
});

test("the default trigger", () => {
  const p = defaultTrigger(false);
  assert.equal(p.create!(ext()), false, "succeeded, nothing asked");
  assert.equal(p.create!(ext(op("reconcile"))), true);
  assert.equal(p.create!(ext(op("restore"))), true);
  assert.equal(p.create!(ext(op("keepalive"))), false);
  assert.equal(p.create!(ext(deleting)), true);
  assert.equal(p.create!(ext((e) => delete e.status)), true, "no last operation");
  assert.equal(p.create!(ext((e) => (e.status!.lastOperation!.state = "Error"))), true);
  assert.equal(p.update!(ext(), ext(op("reconcile"))), true);
  assert.equal(p.update!(ext(), ext((e) => (e.status!.lastOperation!.state = "Error"))), false, "own status writes");
  assert.equal(p.update!(ext(), ext(deleting)), true, "deletion starts");
  const d1 = ext(deleting);
  assert.equal(p.update!(d1, ext((e) => (deleting(e), (e.status!.lastOperation!.state = "Processing")))), false, "status change while deleting");
  assert.equal(p.delete!(ext()), false);
  const g = defaultTrigger(true);
  assert.equal(g.update!(ext(), ext(op("reconcile"))), false);
  assert.equal(g.update!(ext(), ext((e) => (e.metadata.generation = 2))), true);
});

test("operation types", () => {
  assert.equal(operationType(ext((e) => delete e.status)), "Create");
  assert.equal(operationType(ext((e) => (e.status!.lastOperation!.state = "Error"))), "Create");
  assert.equal(operationType(ext()), "Reconcile");
  assert.equal(operationType(ext((e) => (e.status!.lastOperation = { ...e.status!.lastOperation!, type: "Reconcile", state: "Error" }))), "Reconcile");
  assert.equal(operationType(ext(deleting)), "Delete");
});
