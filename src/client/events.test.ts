import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Event } from "../apis/core/v1/types.ts";
import { FakeClock } from "../utils/clock.ts";
import type { Client } from "./client.ts";
import { newEventRecorder } from "./events.ts";

function fakeClient() {
  const created: Event[] = [];
  const patched: { name: string; body: unknown }[] = [];
  const client = {
    create: (_t: unknown, e: Event) => {
      created.push(e);
      return Promise.resolve(e);
    },
    patch: (_t: unknown, key: { name: string }, p: { body: unknown }) => {
      patched.push({ name: key.name, body: p.body });
      return Promise.resolve({});
    },
  } as unknown as Client;
  return { client, created, patched };
}

const bastion = { apiVersion: "operations.gardener.cloud/v1alpha1", kind: "Bastion", metadata: { name: "b", namespace: "garden-dev", uid: "u1", resourceVersion: "7" } };
const settle = () => new Promise((r) => setTimeout(r, 10));

describe("event recorder", () => {
  it("writes a core/v1 Event about the object, as its component", async () => {
    const f = fakeClient();
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    newEventRecorder(f.client, { clock, component: "gardenlet" }).event(bastion, "Normal", "Reconciling", "Extension Bastion written");
    await settle();
    assert.equal(f.created.length, 1);
    const e = f.created[0]!;
    assert.match(e.metadata.name!, /^b\.[0-9a-f]+$/);
    assert.equal(e.metadata.namespace, "garden-dev");
    assert.deepEqual(e.involvedObject, { apiVersion: "operations.gardener.cloud/v1alpha1", kind: "Bastion", name: "b", namespace: "garden-dev", uid: "u1", resourceVersion: "7" });
    assert.deepEqual([e.type, e.reason, e.message, e.count, e.source, e.firstTimestamp, e.reportingComponent], ["Normal", "Reconciling", "Extension Bastion written", 1, { component: "gardenlet" }, "2026-01-01T12:00:00Z", "gardenlet"]);
  });

  it("aggregates repeats into count and lastTimestamp; a cluster-scoped object's events go to default", async () => {
    const f = fakeClient();
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    const r = newEventRecorder(f.client, { clock, component: "c" });
    r.event(bastion, "Warning", "Failed", "boom");
    clock.step(5000);
    r.event(bastion, "Warning", "Failed", "boom");
    r.event(bastion, "Warning", "Failed", "other");
    await settle();
    assert.equal(f.created.length, 2);
    assert.deepEqual(f.patched, [{ name: f.created[0]!.metadata.name, body: { count: 2, lastTimestamp: "2026-01-01T12:00:05Z" } }]);
    r.event({ apiVersion: "core.gardener.cloud/v1beta1", kind: "Seed", metadata: { name: "s", uid: "u2" } }, "Normal", "R", "m");
    await settle();
    assert.equal(f.created.at(-1)!.metadata.namespace, "default");
  });

  it("limits each object to a burst of 25 events, then one per 5 minutes; failures are reported, never thrown", async () => {
    const f = fakeClient();
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    const errors: unknown[] = [];
    const r = newEventRecorder(f.client, { clock, component: "c", onError: (e) => errors.push(e) });
    for (let i = 0; i < 40; i++) r.event(bastion, "Normal", "R", `m${i}`);
    await settle();
    assert.equal(f.created.length, 25);
    clock.step(5 * 60_000);
    r.event(bastion, "Normal", "R", "later");
    r.event(bastion, "Normal", "R", "too soon");
    await settle();
    assert.equal(f.created.length, 26);
    const failing = { create: () => Promise.reject(new Error("down")), patch: () => Promise.reject(new Error("down")) } as unknown as Client;
    newEventRecorder(failing, { clock, component: "c", onError: (e) => errors.push(e) }).event(bastion, "Normal", "R", "m");
    await settle();
    assert.equal(errors.length, 1);
  });
});
