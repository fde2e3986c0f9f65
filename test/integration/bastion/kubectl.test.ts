// The bastion flows with kubectl as the client: `kubectl get bastions` with the Bastion columns,
// `kubectl describe` with the controllers' Events, `kubectl annotate ... gardener.cloud/operation=keepalive`
// as the heartbeat, `kubectl delete`.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { Bastions } from "../../../src/client/garden.ts";
import { type Kubectl, kubectlFor, latestKubectl, skipUnlessKubectl } from "../../support/kubectl.ts";
import { eventually } from "../../support/http.ts";
import { parseTable, rowWhere } from "../../support/table.ts";
import { ipFor } from "./actuator.ts";
import { type Landscape, PROJECT_NS, bastionFor, createShoot, gone, ready, startLandscape } from "./landscape.ts";

describe("bastions with kubectl", { skip: skipUnlessKubectl(latestKubectl) }, () => {
  let ls: Landscape;
  let k: Kubectl;
  before(async () => {
    ls = await startLandscape();
    await createShoot(ls, "s");
    k = kubectlFor(await ls.kubeconfigFor("alice"));
  });
  after(async () => {
    await ls?.stop();
  });

  test("kubectl create and get show the bastion columns", async () => {
    const manifest = join(ls.dir, "bastion.yaml");
    const b = bastionFor("s", "cli-1");
    writeFileSync(manifest, stringify({ apiVersion: "operations.gardener.cloud/v1alpha1", kind: "Bastion", ...b }));
    assert.match(await k.ok(["create", "-f", manifest]), /bastion.operations.gardener.cloud\/cli-1 created/);
    await ready(ls, "cli-1");
    const table = parseTable(await k.ok(["get", "bastions", "-n", PROJECT_NS]));
    assert.deepEqual(table.header, ["NAME", "SHOOT", "SEED", "IP", "HEARTBEAT", "EXPIRES", "AGE"]);
    const row = rowWhere(table, "NAME", "cli-1");
    assert.equal(row.SHOOT, "s");
    assert.equal(row.SEED, "a");
    assert.equal(row.IP, ipFor("cli-1"));
    assert.equal(row.HEARTBEAT, "0s ago", "the garden's clock has not moved since the creation");
    assert.equal(row.EXPIRES, "60m");
    assert.match(row.AGE!, /^\d+s$/);
  });

  test("kubectl describe bastion shows the Events of our controllers", async () => {
    const out = await eventually("the SuccessfullyReconciled event in kubectl describe", async () => {
      const text = await k.ok(["describe", "bastion", "cli-1", "-n", PROJECT_NS]);
      return /SuccessfullyReconciled/.test(text) ? text : undefined;
    }, 15_000, 100);
    const events = out.slice(out.indexOf("\nEvents:"));
    assert.match(events, /^\s+Type\s+Reason\s+Age\s+From\s+Message$/m);
    assert.match(events, /^\s+Normal\s+Reconciling\s+\S+\s+gardenlet\s+Extension Bastion \S+\/cli-1 created$/m);
    assert.match(events, /^\s+Normal\s+SuccessfullyReconciled\s+\S+\s+gardenlet\s+The bastion has been reconciled successfully\.$/m);
  });

  test("kubectl get seeds: the gardenlet's conditions make its Seed Ready, a Seed without a gardenlet is NotReady", async () => {
    const admin = kubectlFor(ls.garden.adminKubeconfigPath);
    const t = await eventually("seed a Ready in kubectl get seeds", async () => {
      const table = parseTable(await admin.ok(["get", "seeds"]));
      return rowWhere(table, "NAME", "a").STATUS === "Ready" ? table : undefined;
    }, 15_000, 100);
    assert.deepEqual(t.header, ["NAME", "STATUS", "LAST OPERATION", "PROVIDER", "REGION", "AGE", "VERSION", "K8S VERSION"]);
    assert.equal(rowWhere(t, "NAME", "a").STATUS, "Ready");
    assert.equal(rowWhere(t, "NAME", "b").STATUS, "NotReady");
    const seed = await admin.json<{ status: { conditions: { type: string; status: string; reason: string }[] } }>(["get", "seed", "a"]);
    assert.deepEqual(
      seed.status.conditions.map((c) => [c.type, c.status, c.reason]),
      [
        ["GardenletReady", "True", "GardenletReady"],
        ["ExtensionsReady", "True", "AllExtensionsReady"],
        ["SeedSystemComponentsHealthy", "True", "SystemComponentsRunning"],
      ],
    );
  });

  test("kubectl annotate gardener.cloud/operation=keepalive heartbeats", async () => {
    const before = await ls.gardenAdmin.get(Bastions, { namespace: PROJECT_NS, name: "cli-1" });
    ls.clock.step(10 * 60_000); // the garden's clock: heartbeats and the table's "now"
    const stale = rowWhere(parseTable(await k.ok(["get", "bastions", "-n", PROJECT_NS])), "NAME", "cli-1");
    assert.deepEqual([stale.HEARTBEAT, stale.EXPIRES], ["10m ago", "50m"]);
    assert.match(await k.ok(["annotate", "bastion", "cli-1", "-n", PROJECT_NS, "gardener.cloud/operation=keepalive"]), /bastion.operations.gardener.cloud\/cli-1 annotated/);
    const after = await ls.gardenAdmin.get(Bastions, { namespace: PROJECT_NS, name: "cli-1" });
    assert.equal(Date.parse(after.status!.lastHeartbeatTimestamp!) - Date.parse(before.status!.lastHeartbeatTimestamp!), 10 * 60_000);
    assert.equal(Date.parse(after.status!.expirationTimestamp!), ls.clock.nowMs() + 60 * 60_000);
    assert.equal(after.metadata.annotations?.["gardener.cloud/operation"], undefined);
    assert.equal(after.metadata.generation, before.metadata.generation, "a keepalive does not bump the generation");
    const fresh = rowWhere(parseTable(await k.ok(["get", "bastions", "-n", PROJECT_NS])), "NAME", "cli-1");
    assert.deepEqual([fresh.HEARTBEAT, fresh.EXPIRES], ["0s ago", "60m"]);
    // A second keepalive right away works too: the annotation was consumed.
    await k.ok(["annotate", "bastion", "cli-1", "-n", PROJECT_NS, "gardener.cloud/operation=keepalive"]);
  });

  test("kubectl delete: the bastion goes away through the seed", async () => {
    await k.ok(["delete", "bastion", "cli-1", "-n", PROJECT_NS, "--wait=false"]);
    await gone(ls, "s", "cli-1");
    assert.equal((await k.ok(["get", "bastions", "-n", PROJECT_NS, "-o", "name"])).trim(), "");
  });
});
