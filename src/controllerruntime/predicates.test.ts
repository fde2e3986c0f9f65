import { test } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject, ObjectMeta } from "../apis/meta/v1/types.ts";
import { type Enqueue, enqueueForObject, enqueueForOwner, enqueueFromMapFunc, ownerRequests } from "./handlers.ts";
import {
  and,
  annotationChanged,
  annotationPresent,
  generationChanged,
  labelSelector,
  labelsChanged,
  not,
  or,
  passesCreate,
  passesDelete,
  passesUpdate,
  resourceVersionChanged,
} from "./predicates.ts";
import type { Request } from "./reconcile.ts";

function o(meta: Partial<ObjectMeta>, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: "v1", kind: "X", metadata: { name: "n", namespace: "ns", ...meta }, ...extra };
}

test("generationChanged passes creates and deletes, and updates only when the generation moved", () => {
  const p = [generationChanged()];
  assert.equal(passesCreate(p, o({ generation: 1 })), true);
  assert.equal(passesDelete(p, o({ generation: 1 })), true);
  assert.equal(passesUpdate(p, o({ generation: 1, resourceVersion: "1" }), o({ generation: 1, resourceVersion: "2" })), false, "status-only change");
  assert.equal(passesUpdate(p, o({ generation: 1 }), o({ generation: 2 })), true);
});

test("resourceVersionChanged drops updates that changed nothing", () => {
  const p = [resourceVersionChanged()];
  assert.equal(passesUpdate(p, o({ resourceVersion: "3" }), o({ resourceVersion: "3" })), false);
  assert.equal(passesUpdate(p, o({ resourceVersion: "3" }), o({ resourceVersion: "4" })), true);
});

test("annotationPresent filters every event kind by the (new) object's annotation and optional value", () => {
  const p = [annotationPresent("gardener.cloud/operation", "reconcile")];
  const with_ = o({ annotations: { "gardener.cloud/operation": "reconcile" } });
  const other = o({ annotations: { "gardener.cloud/operation": "retry" } });
  const none = o({});
  assert.equal(passesCreate(p, with_), true);
  assert.equal(passesCreate(p, other), false);
  assert.equal(passesDelete(p, none), false);
  assert.equal(passesUpdate(p, none, with_), true, "annotation added");
  assert.equal(passesUpdate(p, with_, none), false, "annotation removed");
  assert.equal(passesCreate([annotationPresent("gardener.cloud/operation")], other), true, "any value");
});

test("annotationChanged and labelsChanged look only at their maps", () => {
  assert.equal(passesUpdate([annotationChanged()], o({ annotations: { a: "1" } }), o({ annotations: { a: "1" }, resourceVersion: "9" })), false);
  assert.equal(passesUpdate([annotationChanged()], o({ annotations: { a: "1" } }), o({ annotations: { a: "2" } })), true);
  assert.equal(passesUpdate([annotationChanged("b")], o({ annotations: { a: "1" } }), o({ annotations: { a: "2" } })), false);
  assert.equal(passesUpdate([labelsChanged()], o({}), o({ labels: {} })), false);
  assert.equal(passesUpdate([labelsChanged()], o({}), o({ labels: { x: "y" } })), true);
});

test("labelSelector accepts selector strings and metav1 LabelSelectors", () => {
  const s = [labelSelector("app=web,tier in (a,b)")];
  assert.equal(passesCreate(s, o({ labels: { app: "web", tier: "a" } })), true);
  assert.equal(passesCreate(s, o({ labels: { app: "web", tier: "c" } })), false);
  const m = [labelSelector({ matchLabels: { app: "web" }, matchExpressions: [{ key: "canary", operator: "DoesNotExist" }] })];
  assert.equal(passesCreate(m, o({ labels: { app: "web" } })), true);
  assert.equal(passesCreate(m, o({ labels: { app: "web", canary: "1" } })), false);
});

test("and, or and not combine predicates per event kind", () => {
  const gen = generationChanged();
  const ann = annotationPresent("x");
  const old = o({ generation: 1 });
  const bumped = o({ generation: 2 });
  const annotated = o({ generation: 1, annotations: { x: "" } });
  assert.equal(passesUpdate([or(gen, ann)], old, bumped), true);
  assert.equal(passesUpdate([or(gen, ann)], old, annotated), true);
  assert.equal(passesUpdate([or(gen, ann)], old, old), false);
  assert.equal(passesUpdate([and(gen, ann)], old, bumped), false);
  assert.equal(passesUpdate([not(gen)], old, bumped), false);
  assert.equal(passesCreate([not(gen)], old), false, "not of a pass-through is a block");
});

function collect(fn: (enqueue: Enqueue) => void): Request[] {
  const out: Request[] = [];
  fn((r) => out.push(r));
  return out;
}

test("enqueueForObject enqueues the object's own key; cluster-scoped objects have no namespace", () => {
  const h = enqueueForObject();
  assert.deepEqual(collect((e) => h.create(o({ name: "a" }), e)), [{ name: "a", namespace: "ns" }]);
  assert.deepEqual(collect((e) => h.update(o({ name: "a" }), o({ name: "a" }), e)), [{ name: "a", namespace: "ns" }]);
  assert.deepEqual(collect((e) => h.delete({ metadata: { name: "cluster-thing" } }, e)), [{ name: "cluster-thing" }]);
});

test("enqueueForOwner maps a dependent to its controlling owner of the right group and kind", () => {
  const owner = { group: "operations.gardener.cloud", kind: "Bastion", namespaced: true };
  const dep = o({
    ownerReferences: [
      { apiVersion: "operations.gardener.cloud/v1alpha1", kind: "Bastion", name: "b1", uid: "1", controller: true },
      { apiVersion: "operations.gardener.cloud/v1alpha1", kind: "Bastion", name: "b2", uid: "2" },
      { apiVersion: "other.io/v1", kind: "Bastion", name: "b3", uid: "3", controller: true },
      { apiVersion: "v1", kind: "ConfigMap", name: "c", uid: "4", controller: true },
    ],
  });
  assert.deepEqual(ownerRequests(dep, owner), [{ name: "b1", namespace: "ns" }]);
  assert.deepEqual(ownerRequests(dep, owner, false), [
    { name: "b1", namespace: "ns" },
    { name: "b2", namespace: "ns" },
  ]);
  const moved = o({ ownerReferences: [{ apiVersion: "operations.gardener.cloud/v1alpha1", kind: "Bastion", name: "b9", uid: "9", controller: true }] });
  const h = enqueueForOwner(owner);
  assert.deepEqual(collect((e) => h.update(dep, moved, e)), [{ name: "b1", namespace: "ns" }, { name: "b9", namespace: "ns" }], "old and new owner");
  const clusterOwner = { group: "core.gardener.cloud", kind: "Seed", namespaced: false };
  const d2 = o({ ownerReferences: [{ apiVersion: "core.gardener.cloud/v1beta1", kind: "Seed", name: "s", uid: "5", controller: true }] });
  assert.deepEqual(ownerRequests(d2, clusterOwner), [{ name: "s" }], "cluster-scoped owners have no namespace");
});

test("enqueueFromMapFunc enqueues the mapper's keys, for old and new objects, sync or async", async () => {
  const byShoot = (obj: KubeObject): Request[] => [{ namespace: obj.metadata.namespace, name: `bastion-of-${obj.metadata.name}` }];
  const h = enqueueFromMapFunc(byShoot);
  assert.deepEqual(collect((e) => h.update(o({ name: "s1" }), o({ name: "s2" }), e)), [
    { namespace: "ns", name: "bastion-of-s1" },
    { namespace: "ns", name: "bastion-of-s2" },
  ]);
  const async = enqueueFromMapFunc(async (obj) => [{ name: obj.metadata.name! }]);
  const out: Request[] = [];
  async.create(o({ name: "z" }), (r) => out.push(r));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(out, [{ name: "z" }]);
  const failing = enqueueFromMapFunc(() => {
    throw new Error("mapper bug");
  });
  assert.deepEqual(collect((e) => failing.create(o({}), e)), [], "a throwing mapper enqueues nothing and does not throw");
});
