import { test } from "node:test";
import assert from "node:assert/strict";
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import type { Bastion } from "../../../apis/operations/v1alpha1/types.ts";
import {
  REASON_EXPIRED,
  REASON_HIBERNATED,
  REASON_MAX_LIFETIME,
  REASON_SHOOT_GONE,
  REASON_SHOOT_IN_DELETION,
  REASON_SHOOT_MOVED,
  REASON_SSH_DISABLED,
  decide,
} from "./decide.ts";
import { bastionPredicate, shootPredicate } from "./add.ts";
import { metaTime } from "../../../utils/time.ts";

const H = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const iso = metaTime;

function shoot(mut: (s: Shoot) => void = () => undefined): Shoot {
  const s: Shoot = { metadata: { name: "s", namespace: "garden-p" }, spec: { seedName: "a", provider: { type: "local", workers: [{ name: "w" }] } } };
  mut(s);
  return s;
}

function bastion(expiresMs?: number, mut: (b: Bastion) => void = () => undefined): Bastion {
  const b: Bastion = {
    metadata: { name: "b", namespace: "garden-p", creationTimestamp: iso(T0) },
    spec: { shootRef: { name: "s" }, seedName: "a", sshPublicKey: "k", ingress: [] },
    status: expiresMs === undefined ? {} : { expirationTimestamp: iso(expiresMs) },
  };
  mut(b);
  return b;
}

test("the first matching row decides", () => {
  const max = 24 * H;
  assert.deepEqual(decide(undefined, shoot(), T0, max), { kind: "done" });
  assert.deepEqual(decide(bastion(T0 + H, (b) => (b.metadata.deletionTimestamp = iso(T0))), undefined, T0, max), { kind: "done" });
  assert.deepEqual(decide(bastion(T0 + H), undefined, T0, max), { kind: "delete", reason: REASON_SHOOT_GONE });
  assert.deepEqual(decide(bastion(T0 - H), shoot((s) => (s.metadata.deletionTimestamp = iso(T0))), T0, max), { kind: "delete", reason: REASON_SHOOT_IN_DELETION });
  assert.deepEqual(decide(bastion(T0 + H), shoot((s) => (s.spec.seedName = "b")), T0, max), { kind: "delete", reason: REASON_SHOOT_MOVED });
  assert.deepEqual(decide(bastion(T0 + H), shoot((s) => delete s.spec.seedName), T0, max), { kind: "delete", reason: REASON_SHOOT_MOVED });
  assert.deepEqual(decide(bastion(T0 + H), shoot((s) => (s.spec.hibernation = { enabled: true })), T0, max), { kind: "delete", reason: REASON_HIBERNATED });
  const noSSH = shoot((s) => (s.spec.provider.workersSettings = { sshAccess: { enabled: false } }));
  assert.deepEqual(decide(bastion(T0 + H), noSSH, T0, max), { kind: "delete", reason: REASON_SSH_DISABLED });
  assert.deepEqual(decide(bastion(T0 + H), shoot((s) => (s.spec.provider.workers = [])), T0, max), { kind: "delete", reason: REASON_SSH_DISABLED });
});

test("expiration and max lifetime are strict, and the requeue aims at the nearest deadline", () => {
  const max = 24 * H;
  assert.deepEqual(decide(bastion(T0 + H), shoot(), T0 + H, max), { kind: "requeue", afterMs: 0 }, "exactly at the expiration: not yet");
  assert.deepEqual(decide(bastion(T0 + H), shoot(), T0 + H + 1, max), { kind: "delete", reason: REASON_EXPIRED });
  assert.deepEqual(decide(bastion(T0 + 30 * H), shoot(), T0 + max, max), { kind: "requeue", afterMs: 0 }, "exactly at max lifetime: not yet");
  assert.deepEqual(decide(bastion(T0 + 30 * H), shoot(), T0 + max + 1, max), { kind: "delete", reason: REASON_MAX_LIFETIME });
  assert.deepEqual(decide(bastion(T0 + H), shoot(), T0 + 10 * 60_000, max), { kind: "requeue", afterMs: 50 * 60_000 });
  assert.deepEqual(decide(bastion(T0 + 30 * H), shoot(), T0 + 20 * H, max), { kind: "requeue", afterMs: 4 * H }, "max lifetime nearer than expiration");
  assert.deepEqual(decide(bastion(undefined), shoot(), T0 + H, 2 * H), { kind: "requeue", afterMs: H }, "no expiration: only the max lifetime");
  assert.deepEqual(decide(bastion(undefined, (b) => (b.metadata.creationTimestamp = iso(T0 + 10 * H))), shoot(), T0, H), { kind: "requeue", afterMs: 11 * H }, "creation in the future (clock skew)");
});

test("bastion events: create and generation changes only", () => {
  const p = bastionPredicate();
  const b = bastion(T0);
  assert.equal(p.create!(b), true);
  assert.equal(p.delete!(b), false);
  const keepalive = structuredClone(b);
  keepalive.status = { expirationTimestamp: iso(T0 + H) };
  assert.equal(p.update!(b, keepalive), false);
  const bumped = structuredClone(b);
  bumped.metadata.generation = 2;
  assert.equal(p.update!(b, bumped), true);
});

test("shoot events: only those that can end a bastion's life", () => {
  const p = shootPredicate();
  assert.equal(p.create!(shoot()), false);
  assert.equal(p.create!(shoot((s) => (s.spec.hibernation = { enabled: true }))), true);
  assert.equal(p.delete!(shoot()), true);
  const unscheduled = shoot((s) => delete s.spec.seedName);
  assert.equal(p.update!(unscheduled, shoot()), false, "first scheduling");
  assert.equal(p.update!(shoot(), shoot((s) => (s.spec.seedName = "b"))), true, "moved");
  assert.equal(p.update!(shoot(), shoot((s) => (s.spec.hibernation = { enabled: true }))), true, "hibernated");
  assert.equal(p.update!(shoot(), shoot((s) => (s.spec.provider.workersSettings = { sshAccess: { enabled: false } }))), true, "ssh off");
  assert.equal(p.update!(shoot(), shoot((s) => (s.metadata.deletionTimestamp = iso(T0)))), true, "deleting");
  assert.equal(p.update!(shoot(), shoot((s) => (s.metadata.labels = { x: "y" }))), false, "other change");
  const hibernated = shoot((s) => (s.spec.hibernation = { enabled: true }));
  assert.equal(p.update!(hibernated, hibernated), false, "still hibernated");
});
