// The maintenance window's edges with a fake clock (docs/maintenance-and-rotation.md): a window crossing
// midnight whose effective end is 15 minutes early, that end inclusive at second granularity, the begin
// inclusive, and the rotation period. A maintenance run that decides to do nothing is observed through
// the controller manager's reconcile counter (a run happened), never by waiting for nothing to happen.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sshKeypairRotation } from "../../../src/api/gardencore/rotation.ts";
import type { Shoot } from "../../../src/apis/gardencore/v1beta1/types.ts";
import { Shoots } from "../../../src/client/garden.ts";
import { CONTROLLER_NAME } from "../../../src/controllermanager/controller/maintenance/add.ts";
import { eventually } from "../../support/http.ts";
import { type Landscape, PROJECT_NS, createShoot, startLandscape } from "./landscape.ts";

const DAY0 = Date.parse("2026-03-10T20:00:00Z");
const H = 3_600_000;
const KEY = { namespace: PROJECT_NS, name: "w" };
const OP = "gardener.cloud/operation";

describe("maintenance window edges and the rotation period", { timeout: 120_000 }, () => {
  let ls: Landscape;
  const getShoot = (): Promise<Shoot> => ls.garden.get(Shoots, KEY);
  const lastMaintenance = (s: Shoot) => s.status?.lastMaintenance as { triggeredTime?: string; description?: string } | undefined;
  /** Finished maintenance reconciles so far. */
  const runs = async (): Promise<number> => {
    const metric = await ls.gcm.manager.registry.getSingleMetric("controller_runtime_reconcile_total")?.get();
    return (metric?.values ?? []).filter((v) => v.labels.controller === CONTROLLER_NAME).reduce((a, v) => a + v.value, 0);
  };
  /** Runs `change` and waits until the controller manager finished a maintenance run after it. */
  const afterRun = async (change: () => Promise<unknown>): Promise<Shoot> => {
    const before = await runs();
    await change();
    await eventually("a maintenance run", async () => ((await runs()) > before ? true : undefined), 10_000, 10);
    return getShoot();
  };
  const setWindow = (begin: string, end: string) => ls.garden.patch(Shoots, KEY, { type: "merge", body: { spec: { maintenance: { timeWindow: { begin, end } } } } });
  const completed = (since: string | undefined) =>
    eventually("rotation completed", async () => {
      const r = sshKeypairRotation(await getShoot());
      return r?.lastInitiationTime && r.lastInitiationTime !== since && r.lastCompletionTime && r.lastCompletionTime >= r.lastInitiationTime ? r : undefined;
    }, 30_000, 20);

  before(async () => {
    ls = await startLandscape({ start: DAY0, shoot: `${PROJECT_NS}/w` });
    // No nodes: the gate passes and a rotation completes at once. A window far from now, the period 2 h.
    await createShoot(ls, "w", { maintenance: { timeWindow: { begin: "120000+0000", end: "130000+0000" }, autoRotation: { credentials: { sshKeypair: { rotationPeriod: "2h" } } } } });
  });
  after(() => ls?.stop());

  it("a window crossing midnight ends 15 minutes early: one second after the effective end nothing starts", async () => {
    ls.clock.set(DAY0 + 4 * H + 45 * 60_000 + 1500); // 00:45:01.5 UTC; the period passed at 22:00
    const s = await afterRun(() => setWindow("230000+0000", "010000+0000")); // effective 23:00:00-00:45:00
    assert.equal(s.status?.lastMaintenance, undefined, "no maintenance outside the effective window");
    assert.equal(s.metadata.annotations?.[OP], undefined, "no rotation requested");
    assert.equal(sshKeypairRotation(s), undefined);
  });

  it("the effective end is inclusive (sub-seconds truncated): a rotation starts and completes", async () => {
    const s = await afterRun(() => setWindow("230000+0000", "010001+0000")); // effective end 00:45:01
    assert.deepEqual(s.status?.lastMaintenance, {
      description: 'All maintenance operations successful. Credentials "rotate-ssh-keypair": SSH keypair rotation started. Reason: Automatic rotation of SSH keypair configured',
      triggeredTime: "2026-03-11T00:45:01Z",
      state: "Succeeded",
    });
    const r = await completed(undefined);
    assert.equal(r.lastInitiationTime, "2026-03-11T00:45:01Z");
  });

  it("inside the window, before the period has passed since the last completion, maintenance requests no rotation", async () => {
    const started = sshKeypairRotation(await getShoot())?.lastInitiationTime;
    ls.clock.set(DAY0 + 4 * H + 45 * 60_000 + 1500 + 2 * H - 2000); // 02:44:59.5, inside a window moved to 02:00-04:00
    const s = await afterRun(() => setWindow("020000+0000", "040000+0000"));
    assert.equal(lastMaintenance(s)?.triggeredTime, "2026-03-11T02:44:59Z", "maintained");
    assert.doesNotMatch(String(lastMaintenance(s)?.description), /rotate-ssh-keypair/);
    assert.equal(s.metadata.annotations?.[OP], undefined);
    assert.equal(sshKeypairRotation(s)?.lastInitiationTime, started, "no second rotation within the period");
  });

  it("the next run falls at the next window's begin (inclusive), where the period has passed: one rotation", async () => {
    const started = sshKeypairRotation(await getShoot())?.lastInitiationTime;
    ls.clock.set(Date.parse("2026-03-12T01:59:59Z"));
    assert.equal(lastMaintenance(await getShoot())?.triggeredTime, "2026-03-11T02:44:59Z", "no run before the window");
    const s = await afterRun(async () => ls.clock.set(Date.parse("2026-03-12T02:00:00Z")));
    assert.equal(lastMaintenance(s)?.triggeredTime, "2026-03-12T02:00:00Z");
    const r = await completed(started);
    assert.equal(r.lastInitiationTime, "2026-03-12T02:00:00Z");
  });
});
