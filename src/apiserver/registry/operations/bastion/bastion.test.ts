import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { ed25519AuthorizedKey } from "../../../../api/operations/testing.ts";
import { FakeClock } from "../../../../utils/clock.ts";
import { simulateCreate, simulateStatusUpdate, simulateUpdate } from "../../core/testing.ts";
import { bastionDefinition } from "./definition.ts";

const KEY = ed25519AuthorizedKey();
const HOUR = 3_600_000;

function setup() {
  const clock = new FakeClock(Date.parse("2026-01-01T12:00:00.700Z"));
  return { clock, def: bastionDefinition({ ttlMs: HOUR, clock }) };
}

const bastion = (meta: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "operations.gardener.cloud/v1alpha1",
  kind: "Bastion",
  metadata: { name: "cli-x1", namespace: "garden-dev", uid: "u1", generation: 1, ...meta },
  spec: { shootRef: { name: "local" }, seedName: "local", providerType: "local", sshPublicKey: KEY, ingress: [{ ipBlock: { cidr: "1.2.3.4/32" } }] },
  ...extra,
});

type Status = { lastHeartbeatTimestamp?: string; expirationTimestamp?: string; conditions?: unknown[] };
const statusOf = (o: KubeObject) => o.status as Status;
const annotations = (o: KubeObject) => o.metadata.annotations ?? {};

describe("Bastion resource", () => {
  it("is served as operations.gardener.cloud/v1alpha1 bastions with status, category all and no short names", () => {
    const { def } = setup();
    assert.deepEqual([def.group, def.version, def.kind, def.plural, def.singular, def.namespaced, def.hasStatus], [
      "operations.gardener.cloud",
      "v1alpha1",
      "Bastion",
      "bastions",
      "bastion",
      true,
      true,
    ]);
    assert.deepEqual(def.categories, ["all"]);
    assert.equal(def.shortNames, undefined);
    assert.equal(def.strategy.allowUnconditionalUpdate, false);
    assert.equal(def.strategy.allowCreateOnUpdate, false);
  });

  it("starts the heartbeat on create, discarding client status and consuming keepalive/reconcile (docs/bastion.md#d4-client-status-is-dropped-on-create)", () => {
    const { def } = setup();
    const body = bastion(
      { generation: 7, annotations: { "gardener.cloud/operation": "reconcile", other: "x" } },
      { status: { lastHeartbeatTimestamp: "2030-01-01T00:00:00Z", sshHostKeys: ["ssh-ed25519 AAAA"], observedGeneration: 3 } },
    );
    const out = simulateCreate(def, body);
    assert.deepEqual(out.errors, []);
    assert.equal(out.obj.metadata.generation, 1);
    assert.deepEqual(out.obj.status, { lastHeartbeatTimestamp: "2026-01-01T12:00:00Z", expirationTimestamp: "2026-01-01T13:00:00Z" });
    assert.deepEqual(annotations(out.obj), { other: "x" });
    const keepalive = simulateCreate(def, bastion({ annotations: { "gardener.cloud/operation": "keepalive" } }));
    assert.deepEqual(annotations(keepalive.obj), {});
    const other = simulateCreate(def, bastion({ annotations: { "gardener.cloud/operation": "migrate" } }));
    assert.deepEqual(annotations(other.obj), { "gardener.cloud/operation": "migrate" });
  });

  it("extends the expiration on keepalive without bumping the generation", () => {
    const { def, clock } = setup();
    const stored = simulateCreate(def, bastion()).obj;
    clock.step(20 * 60_000);
    const out = simulateUpdate(def, { ...bastion({ annotations: { "gardener.cloud/operation": "keepalive" } }), status: { lastHeartbeatTimestamp: "x" } }, stored);
    assert.deepEqual(out.errors, []);
    assert.equal(out.obj.metadata.generation, 1);
    assert.deepEqual(annotations(out.obj), {});
    assert.equal(statusOf(out.obj).lastHeartbeatTimestamp, "2026-01-01T12:20:00Z");
    assert.equal(statusOf(out.obj).expirationTimestamp, "2026-01-01T13:20:00Z");
  });

  it("keeps status on main-resource updates and bumps the generation only for the listed reasons", () => {
    const { def } = setup();
    const stored = { ...simulateCreate(def, bastion()).obj, status: { lastHeartbeatTimestamp: "2026-01-01T11:00:00Z", conditions: [{ type: "BastionReady" }] } };
    const gen = (body: KubeObject, old: KubeObject = stored) => simulateUpdate(def, body, old).obj.metadata.generation;
    // Labels, unrelated annotations and a client status change nothing.
    assert.equal(gen(bastion({ labels: { a: "b" }, annotations: { x: "y" } }, { status: { conditions: [] } })), 1);
    assert.deepEqual(simulateUpdate(def, bastion({}, { status: {} }), stored).obj.status, stored.status);
    // A spec change (ingress), but not a semantically equal one.
    assert.equal(gen({ ...bastion(), spec: { ...(bastion().spec as object), ingress: [{ ipBlock: { cidr: "5.6.7.8/32" } }] } }), 2);
    assert.equal(gen({ ...bastion(), spec: { ...(bastion().spec as object), ingress: [{ ipBlock: { cidr: "1.2.3.4/32", except: [] } }] } }), 1);
    // A new deletionTimestamp.
    assert.equal(gen(bastion({ deletionTimestamp: "2026-01-01T12:00:00Z" })), 2);
    // Force deletion newly confirmed; only "true" counts, and only the first time.
    const force = bastion({ annotations: { "confirmation.gardener.cloud/force-deletion": "true" } });
    assert.equal(gen(force), 2);
    assert.equal(gen(force, { ...stored, metadata: { ...stored.metadata, annotations: { "confirmation.gardener.cloud/force-deletion": "true" } } }), 1);
    assert.equal(gen(bastion({ annotations: { "confirmation.gardener.cloud/force-deletion": "yes" } })), 1);
  });

  it("consumes operation reconcile in the write that bumps the generation (docs/bastion.md#d5-reconcile-is-consumed-in-the-bumping-write)", () => {
    const { def } = setup();
    const stored = simulateCreate(def, bastion()).obj;
    const out = simulateUpdate(def, bastion({ annotations: { "gardener.cloud/operation": "reconcile", keep: "me" } }), stored);
    assert.equal(out.obj.metadata.generation, 2);
    assert.deepEqual(annotations(out.obj), { keep: "me" });
    // The next update carries no operation and does not bump again.
    assert.equal(simulateUpdate(def, out.obj, out.obj).obj.metadata.generation, 2);
    const other = simulateUpdate(def, bastion({ annotations: { "gardener.cloud/operation": "wait-for-state" } }), stored);
    assert.equal(other.obj.metadata.generation, 1);
    assert.deepEqual(annotations(other.obj), { "gardener.cloud/operation": "wait-for-state" });
  });

  it("runs the update validation (immutable creator, shoot and key)", () => {
    const { def } = setup();
    const stored = simulateCreate(def, bastion({ annotations: { "gardener.cloud/created-by": "alice" } })).obj;
    const out = simulateUpdate(def, { ...bastion(), spec: { ...(bastion().spec as object), shootRef: { name: "other" } } }, stored);
    assert.deepEqual(out.errors, [
      'metadata.annotations: Invalid value: "": field is immutable',
      'spec.shootRef.name: Invalid value: "other": field is immutable',
    ]);
  });

  it("takes the heartbeat from /status writes, keeps the stored one when absent and always recomputes the expiration", () => {
    const { def, clock } = setup();
    const stored = simulateCreate(def, bastion()).obj;
    const write = (status: unknown) => simulateStatusUpdate(def, { ...bastion(), status } as KubeObject, stored);
    const past = write({ lastHeartbeatTimestamp: "2026-01-01T12:30:00+01:00", expirationTimestamp: "2099-01-01T00:00:00Z", sshHostKeys: ["k"] });
    assert.deepEqual(past.errors, []);
    assert.deepEqual(past.obj.status, {
      lastHeartbeatTimestamp: "2026-01-01T11:30:00Z",
      expirationTimestamp: "2026-01-01T12:30:00Z",
      sshHostKeys: ["k"],
    });
    const kept = write({ conditions: [{ type: "BastionReady", status: "True" }] });
    assert.equal(statusOf(kept.obj).lastHeartbeatTimestamp, "2026-01-01T12:00:00Z");
    assert.equal(statusOf(kept.obj).expirationTimestamp, "2026-01-01T13:00:00Z");
    assert.equal(statusOf(write(undefined).obj).expirationTimestamp, "2026-01-01T13:00:00Z");
    assert.deepEqual(write({ lastHeartbeatTimestamp: "2026-01-01T12:00:01Z" }).errors, [
      'status.lastHeartbeatTimestamp: Invalid value: "2026-01-01T12:00:01Z": last heartbeat must not be in the future',
    ]);
    clock.step(1000);
    assert.deepEqual(write({ lastHeartbeatTimestamp: "2026-01-01T12:00:01Z" }).errors, []);
  });

  it("selects on spec.seedName (empty when unset) and spec.shootRef.name", () => {
    const { def } = setup();
    const b = bastion();
    assert.equal(def.fieldSelectors!["spec.seedName"]!(b), "local");
    assert.equal(def.fieldSelectors!["spec.shootRef.name"]!(b), "local");
    assert.equal(def.fieldSelectors!["spec.seedName"]!({ metadata: {}, spec: {} }), "");
  });

  it("prints SHOOT, SEED, IP, HEARTBEAT, EXPIRES and AGE", () => {
    const { def } = setup();
    assert.deepEqual(def.table!.columns.map((c) => [c.name, c.type]), [
      ["Shoot", "string"],
      ["Seed", "string"],
      ["IP", "string"],
      ["Heartbeat", "string"],
      ["Expires", "string"],
      ["Age", "date"],
    ]);
    const now = new Date("2026-01-01T12:10:00Z");
    const row = (spec: Record<string, unknown>, status?: Record<string, unknown>) =>
      def.table!.cells({ metadata: { name: "b", creationTimestamp: "2026-01-01T12:00:00Z" }, spec, ...(status ? { status } : {}) }, now);
    assert.deepEqual(row({ shootRef: { name: "s" } }), ["s", "<pending>", "<pending>", "<never>", "<pending>", "10m"]);
    assert.deepEqual(
      row(
        { shootRef: { name: "s" }, seedName: "local" },
        { ingress: { ip: "172.18.0.5" }, lastHeartbeatTimestamp: "2026-01-01T12:05:00Z", expirationTimestamp: "2026-01-01T13:05:00Z" },
      ),
      ["s", "local", "172.18.0.5", "5m ago", "55m", "10m"],
    );
    assert.deepEqual(row({}, { ingress: { ip: "1.1.1.1", hostname: "b.example" }, expirationTimestamp: "2026-01-01T12:09:59Z" }).slice(2, 5), ["b.example", "<never>", "<expired>"]);
    assert.deepEqual(row({}, { ingress: { ip: "", hostname: "" } }).slice(2, 3), ["<pending>"]);
  });
});
