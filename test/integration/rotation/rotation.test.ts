// SSH key pair rotation end to end in one process (docs/maintenance-and-rotation.md): the controller
// manager requests it in the maintenance window once the period has passed (never before the window,
// also across midnight), the gardenlet holds it while a node runs an old configuration (and says why
// on the Shoot), moves the key to `.old` (seed and garden), and completes once every node reports;
// nodes then hold exactly the current and the previous key. SSH access off removes every key.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ANNOTATION_CHECKSUM_CLOUD_CONFIG, ANNOTATION_CHECKSUM_DATA_SCRIPT, OSC_NAMESPACE } from "../../../src/api/gardencore/osc.ts";
import { sshKeypairRotation } from "../../../src/api/gardencore/rotation.ts";
import type { Shoot } from "../../../src/apis/gardencore/v1beta1/types.ts";
import { Secrets } from "../../../src/client/builtins.ts";
import { Shoots } from "../../../src/client/garden.ts";
import { unlessNotFound } from "../../../src/client/helpers.ts";
import { Nodes } from "../../../src/nodeagent/node.ts";
import { controllersIdle } from "../../support/controllers.ts";
import { eventually } from "../../support/http.ts";
import { type Landscape, type Machine, PROJECT_NS, createShoot, startLandscape } from "./landscape.ts";

const DAY0 = Date.parse("2026-03-10T20:00:00Z");
const H = 3_600_000;
const KEY = { namespace: PROJECT_NS, name: "s" };
const TECHNICAL_ID = "shoot--p--s";
const OP = "gardener.cloud/operation";

describe("SSH key pair rotation", { timeout: 180_000 }, () => {
  let ls: Landscape;
  let machines: Machine[];
  const keys: string[] = [];

  const getShoot = (): Promise<Shoot> => ls.garden.get(Shoots, KEY);
  const pub = async (client: Landscape["garden"], namespace: string, name: string): Promise<string | undefined> => {
    const s = await unlessNotFound(client.get(Secrets, { namespace, name }));
    return s ? Buffer.from(s.data?.["id_rsa.pub"] ?? "", "base64").toString() : undefined;
  };
  const current = () => pub(ls.garden, PROJECT_NS, "s.ssh-keypair");
  /** Waits until the rotation started at or after `since` completed and every node has `expected` installed. */
  const completed = async (since: number, expected: string): Promise<Shoot> => {
    const done = await eventually("rotation completed", async () => {
      const r = sshKeypairRotation(await getShoot());
      return r?.lastCompletionTime && Date.parse(r.lastInitiationTime!) >= since && Date.parse(r.lastCompletionTime) >= Date.parse(r.lastInitiationTime!) ? getShoot() : undefined;
    }, 30_000, 20);
    for (const m of machines) assert.equal(m.authorizedKeys(), expected, `${m.name}: exactly the current and the previous key`);
    return done;
  };
  /** Moves the fake clock to `at` (timers fire in order on the way), then waits until every reconcile that set off is over. */
  const stepTo = async (at: number): Promise<void> => {
    ls.clock.set(at);
    await controllersIdle([ls.gcm.manager, ls.gardenlet.manager]);
  };

  before(async () => {
    ls = await startLandscape({ start: DAY0 });
    // A window crossing midnight; the key pair rotates every 2 hours.
    await createShoot(ls, "s", { maintenance: { timeWindow: { begin: "000000+0100", end: "020000+0100" }, autoRotation: { credentials: { sshKeypair: { rotationPeriod: "2h" } } } } });
    machines = [await ls.startMachine("node-0"), await ls.startMachine("node-1")];
    keys.push((await eventually("first key pair", current, 30_000))!);
    await eventually("nodes have the first key", () => (machines.every((m) => m.authorizedKeys() === keys[0]) ? true : undefined), 15_000);
  });
  after(() => ls?.stop());

  it("starts no rotation before the window even though the period has passed, then one at the window's begin (23:00 UTC)", async () => {
    await stepTo(DAY0 + 3 * H - 1000); // 22:59:59: the 2 h period passed at 22:00
    let s = await getShoot();
    assert.equal(s.status?.lastMaintenance, undefined, "no maintenance run outside the window");
    assert.equal(sshKeypairRotation(s), undefined);
    assert.ok(!(s.metadata.annotations?.[OP] ?? "").includes("rotate-ssh-keypair"));

    await stepTo(DAY0 + 3 * H); // 23:00:00, inclusive
    s = await eventually("maintained", async () => ((await getShoot()).status?.lastMaintenance ? getShoot() : undefined), 10_000, 20);
    assert.deepEqual(s.status?.lastMaintenance, {
      description: 'All maintenance operations successful. Credentials "rotate-ssh-keypair": SSH keypair rotation started. Reason: Automatic rotation of SSH keypair configured',
      triggeredTime: "2026-03-10T23:00:00Z",
      state: "Succeeded",
    });
    keys.push(await eventually("new key", async () => ((await current()) !== keys[0] ? current() : undefined), 30_000, 20) as string);
    const done = await completed(DAY0 + 3 * H, `${keys[1]}\n${keys[0]}`);
    assert.equal(sshKeypairRotation(done)?.lastInitiationTime, "2026-03-10T23:00:00Z");
    assert.equal(done.metadata.annotations?.[OP], undefined, "the request was consumed");
    assert.equal(await pub(ls.garden, PROJECT_NS, "s.ssh-keypair.old"), keys[0], "garden .old copy");
    assert.equal(await pub(ls.seed, TECHNICAL_ID, "ssh-keypair.old"), keys[0], "seed .old");
    const seedCurrent = await ls.seed.get(Secrets, { namespace: TECHNICAL_ID, name: "ssh-keypair" });
    assert.equal(seedCurrent.metadata.labels?.["last-rotation-initiation-time"], String((DAY0 + 3 * H) / 1000));
  });

  it("holds a requested rotation while a node runs an old configuration, says why, and starts once it caught up", async () => {
    const stale = machines[1]!;
    await stale.stop();
    await ls.shoot.patch(Nodes, { name: stale.name }, { type: "merge", body: { metadata: { annotations: { [ANNOTATION_CHECKSUM_CLOUD_CONFIG]: "0000" } } } });
    const before = sshKeypairRotation(await getShoot());
    await ls.garden.patch(Shoots, KEY, { type: "merge", body: { metadata: { annotations: { [OP]: "rotate-ssh-keypair" } } } });
    const osc = (await ls.shoot.list(Secrets, { namespace: OSC_NAMESPACE, labelSelector: "gardener.cloud/role=operating-system-config" })).items[0]!;
    const desired = osc.metadata.annotations?.[ANNOTATION_CHECKSUM_DATA_SCRIPT];
    const waiting = await eventually("constraint", async () => {
      const s = await getShoot();
      return (s.status?.constraints as { type: string }[] | undefined)?.some((c) => c.type === "SSHKeypairRotationPossible") ? s : undefined;
    }, 10_000, 20);
    const c = (waiting.status?.constraints as Record<string, string>[]).find((x) => x.type === "SSHKeypairRotationPossible")!;
    assert.deepEqual([c.status, c.reason, c.message], [
      "False",
      "NodesNotUpToDate",
      `SSH key pair rotation waits until all nodes have applied the latest operating system config (1/2 up to date): the last successfully applied operating system config on node "node-1" is outdated (current: 0000, desired: ${desired})`,
    ]);
    assert.equal(waiting.metadata.annotations?.[OP], "rotate-ssh-keypair", "the request stays");
    assert.deepEqual(sshKeypairRotation(waiting), before, "not started");
    assert.equal(await current(), keys[1]);

    const started = ls.clock.nowMs();
    machines[1] = await ls.startMachine(stale.name);
    keys.push(await eventually("new key", async () => ((await current()) !== keys[1] ? current() : undefined), 30_000, 20) as string);
    const done = await completed(started, `${keys[2]}\n${keys[1]}`);
    assert.equal((done.status?.constraints as { type: string }[] | undefined)?.some((x) => x.type === "SSHKeypairRotationPossible") ?? false, false, "constraint removed");
    assert.equal(done.metadata.annotations?.[OP], undefined);
    assert.equal(await pub(ls.garden, PROJECT_NS, "s.ssh-keypair.old"), keys[1]);
    for (const m of machines) assert.ok(!m.authorizedKeys()!.includes(keys[0]!), `${m.name}: the key of two rotations ago is gone`);
  });

  it("rotates again in the next day's window once the period has passed since the last completion", async () => {
    await stepTo(DAY0 + 27 * H - 1000); // next day 22:59:59
    assert.equal(await current(), keys[2], "nothing before the window");
    await stepTo(DAY0 + 27 * H);
    keys.push(await eventually("new key", async () => ((await current()) !== keys[2] ? current() : undefined), 30_000, 20) as string);
    await completed(DAY0 + 27 * H, `${keys[3]}\n${keys[2]}`);
    assert.equal(new Set(keys).size, 4, "every rotation made a fresh key");
  });

  it("disabling SSH access removes every key from every node; re-enabling brings one fresh key", async () => {
    const off = { provider: { type: "local", workers: [{ name: "worker", minimum: 2, maximum: 2, machine: { type: "local" } }], workersSettings: { sshAccess: { enabled: false } } } };
    await ls.garden.patch(Shoots, KEY, { type: "merge", body: { spec: off } });
    await eventually("keys removed", async () => (machines.every((m) => m.authorizedKeys() === undefined && m.sshd.last === false) && sshKeypairRotation(await getShoot()) === undefined ? true : undefined), 15_000, 20);
    for (const name of ["s.ssh-keypair", "s.ssh-keypair.old"]) assert.equal(await pub(ls.garden, PROJECT_NS, name), undefined, name);
    for (const name of ["ssh-keypair", "ssh-keypair.old"]) assert.equal(await pub(ls.seed, TECHNICAL_ID, name), undefined, name);

    await ls.garden.patch(Shoots, KEY, { type: "merge", body: { spec: { provider: { ...off.provider, workersSettings: { sshAccess: { enabled: true } } } } } });
    const fresh = (await eventually("fresh key", current, 30_000, 20))!;
    assert.ok(!keys.includes(fresh));
    await eventually("nodes have only the fresh key", () => (machines.every((m) => m.authorizedKeys() === fresh && m.sshd.last === true) ? true : undefined), 15_000, 20);
    assert.equal(await pub(ls.garden, PROJECT_NS, "s.ssh-keypair.old"), undefined);
  });
});
