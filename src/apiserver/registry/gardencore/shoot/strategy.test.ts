import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Shoot } from "../../../../apis/gardencore/v1beta1/types.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { FakeClock } from "../../../../utils/clock.ts";
import { simulateCreate, simulateUpdate, testContext } from "../../core/testing.ts";
import { shootDefinitionWith } from "./definition.ts";
import { ROTATION_WARNING, rotationWarnings } from "./strategy.ts";

const def = shootDefinitionWith({ random: () => 0.5 });
const OP = "gardener.cloud/operation";
const workers = [{ name: "w1", minimum: 1, maximum: 2 }];
const shoot = (spec: Record<string, unknown> = {}, annotations?: Record<string, string>, status?: Record<string, unknown>): KubeObject => ({
  metadata: { name: "s", namespace: "garden-p", generation: 1, ...(annotations ? { annotations } : {}) },
  spec: { provider: { type: "local", workers }, ...spec },
  ...(status ? { status } : {}),
});
const sshKeypairOf = (o: KubeObject) => (o.spec as { maintenance?: { autoRotation?: { credentials?: { sshKeypair?: unknown } } } }).maintenance?.autoRotation?.credentials?.sshKeypair;
const PERIOD = "spec.maintenance.autoRotation.credentials.sshKeypair.rotationPeriod";

describe("Shoot strategy: rotation defaults and validation", () => {
  it("defaults the rotation period to 168h for shoots with workers (also on update), keeps explicit values, and a random window", () => {
    const created = simulateCreate(def, shoot());
    assert.deepEqual(created.errors, []);
    assert.deepEqual(sshKeypairOf(created.obj), { rotationPeriod: "168h" });
    assert.deepEqual((created.obj.spec as { maintenance: { timeWindow: unknown } }).maintenance.timeWindow, { begin: "110000+0000", end: "120000+0000" });
    assert.deepEqual(sshKeypairOf(simulateCreate(def, shoot({ maintenance: { autoRotation: { credentials: { sshKeypair: { rotationPeriod: "0" } } } } })).obj), { rotationPeriod: "0" });
    const window = { begin: "030000+0200", end: "040000+0200" };
    const updated = simulateUpdate(def, shoot({ maintenance: {} }), shoot({ maintenance: { timeWindow: window } }));
    assert.deepEqual(sshKeypairOf(updated.obj), { rotationPeriod: "168h" });
    assert.deepEqual((updated.obj.spec as { maintenance: { timeWindow: unknown } }).maintenance.timeWindow, window, "an update without a window keeps the old one");
    assert.equal(sshKeypairOf(simulateCreate(def, shoot({ provider: { type: "local" } })).obj), undefined, "workerless: no default");
  });

  it("accepts 0 and 30m..90d inclusive, rejects the rest", () => {
    const errorsFor = (p: unknown) => simulateCreate(def, shoot({ maintenance: { autoRotation: { credentials: { sshKeypair: { rotationPeriod: p } } } } })).errors;
    for (const ok of ["0", "30m", "1h", "168h", "2160h", "1800s"]) assert.deepEqual(errorsFor(ok), [], ok);
    for (const bad of ["29m59s", "2160h1s", "-1h", "1d", "soon"]) {
      assert.deepEqual(errorsFor(bad), [`${PERIOD}: Invalid value: "${bad}": value must be either 0 to disable rotation or between 30m and 90d`], bad);
    }
  });

  it("forbids sshKeypair and workersSettings on workerless shoots", () => {
    const out = simulateCreate(def, shoot({ provider: { type: "local", workersSettings: { sshAccess: { enabled: true } } }, maintenance: { autoRotation: { credentials: { sshKeypair: { rotationPeriod: "1h" } } } } }));
    assert.deepEqual(out.errors, [
      "spec.maintenance.autoRotation.credentials.sshKeypair: Forbidden: this field should not be set for workerless Shoot cluster",
      "spec.provider.workersSettings: Forbidden: this field should not be set for workerless Shoot clusters",
    ]);
  });

  it("validates the window's length (30m..6h) and rejects equal operations in both annotations", () => {
    const windowErrors = (begin: string, end: string) => simulateCreate(def, shoot({ maintenance: { timeWindow: { begin, end } } })).errors;
    assert.deepEqual(windowErrors("230000+0000", "010000+0000"), []);
    assert.deepEqual(windowErrors("220000+0100", "040000+0100"), []);
    assert.deepEqual(windowErrors("100000+0000", "102959+0000"), ['spec.maintenance.timeWindow.end: Invalid value: "102959+0000": time window must not be smaller than 30m0s']);
    assert.deepEqual(windowErrors("100000+0000", "100000+0000"), ['spec.maintenance.timeWindow.end: Invalid value: "100000+0000": time window must not be greater than 6h0m0s']);
    const both = simulateCreate(def, shoot({}, { [OP]: "rotate-ssh-keypair", "maintenance.gardener.cloud/operation": "rotate-ssh-keypair" }));
    assert.deepEqual(both.errors, ["metadata.annotations: Forbidden: annotations gardener.cloud/operation and maintenance.gardener.cloud/operation must not have any equal operations"]);
  });
});

describe("Shoot strategy: gardener.cloud/operation", () => {
  const update = (annotation: string, o: { spec?: Record<string, unknown>; old?: string; failed?: boolean } = {}) => {
    const status = o.failed ? { lastOperation: { state: "Failed" } } : undefined;
    const old = shoot(o.spec, o.old ? { [OP]: o.old } : undefined, status);
    const out = simulateUpdate(def, shoot(o.spec, { [OP]: annotation }), old);
    return { op: out.obj.metadata.annotations?.[OP], generation: out.obj.metadata.generation };
  };

  it("splits, trims and deduplicates; removes reconcile with a generation bump", () => {
    assert.deepEqual(update(" reconcile ; ;rotate-ca-start;rotate-ca-start"), { op: "rotate-ca-start", generation: 2 });
    assert.deepEqual(update("reconcile"), { op: undefined, generation: 2 });
  });

  it("keeps rotate-ssh-keypair and bumps the generation only when it is new", () => {
    assert.deepEqual(update("rotate-ssh-keypair;rotate-ca-start"), { op: "rotate-ssh-keypair;rotate-ca-start", generation: 2 });
    assert.deepEqual(update("rotate-ssh-keypair", { old: "rotate-ssh-keypair" }), { op: "rotate-ssh-keypair", generation: 1 });
  });

  it("drops rotate-ssh-keypair when a credentials rotation starts or SSH access is off", () => {
    assert.deepEqual(update("rotate-ssh-keypair;rotate-credentials-start"), { op: "rotate-credentials-start", generation: 2 });
    assert.deepEqual(update("rotate-credentials-start-without-workers-rollout;rotate-ssh-keypair"), { op: "rotate-credentials-start-without-workers-rollout", generation: 2 });
    const off = { provider: { type: "local", workers, workersSettings: { sshAccess: { enabled: false } } } };
    assert.deepEqual(update("rotate-ssh-keypair", { spec: off }), { op: undefined, generation: 1 });
    assert.deepEqual(update("rotate-ssh-keypair", { spec: { provider: { type: "local" } } }), { op: undefined, generation: 1 }, "workerless");
  });

  it("leaves the operations alone after a failed operation", () => {
    assert.deepEqual(update("reconcile;rotate-ssh-keypair", { failed: true }), { op: "reconcile;rotate-ssh-keypair", generation: 1 });
  });
});

describe("Shoot strategy: rotation reminder", () => {
  const DAY = 24 * 3600 * 1000;
  const now = Date.UTC(2026, 5, 1);
  const aged = (createdDaysAgo: number, rotatedDaysAgo?: number, spec: Record<string, unknown> = {}): Shoot => {
    const s = shoot(spec) as Shoot;
    s.metadata.creationTimestamp = new Date(now - createdDaysAgo * DAY).toISOString();
    if (rotatedDaysAgo !== undefined) s.status = { credentials: { rotation: { sshKeypair: { lastInitiationTime: new Date(now - rotatedDaysAgo * DAY).toISOString() } } } };
    return s;
  };

  it("warns when the shoot is older than the interval and its key pair was not rotated within it", () => {
    assert.deepEqual(rotationWarnings(aged(91), now), [ROTATION_WARNING]);
    assert.deepEqual(rotationWarnings(aged(91, 91), now), [ROTATION_WARNING]);
    assert.deepEqual(rotationWarnings(aged(91, 10), now), []);
    assert.deepEqual(rotationWarnings(aged(89), now), []);
    assert.deepEqual(rotationWarnings(aged(11), now, 10 * DAY), [ROTATION_WARNING], "the interval is configurable");
    assert.deepEqual(rotationWarnings(aged(91, undefined, { provider: { type: "local", workers, workersSettings: { sshAccess: { enabled: false } } } }), now), [], "no SSH access");
    assert.match(ROTATION_WARNING, /^you should consider rotating the SSH keypair/);
  });

  it("comes from the strategy on update, with the server's clock", () => {
    const ctx = { ...testContext("garden-p"), clock: new FakeClock(now) };
    const old = aged(100);
    const d = shootDefinitionWith({ credentialsRotationIntervalMs: 90 * DAY });
    assert.deepEqual(d.strategy.warningsOnUpdate?.(ctx, old, old), [ROTATION_WARNING]);
    assert.deepEqual(shootDefinitionWith({ credentialsRotationIntervalMs: 200 * DAY }).strategy.warningsOnUpdate?.(ctx, old, old), []);
  });
});
