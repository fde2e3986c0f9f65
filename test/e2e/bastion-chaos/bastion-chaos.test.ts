// Bastions on the real local landscape under expiry and chaos (root). One landscape, started with a
// 20 s --bastion-time-to-live:
//  - expiry: a Bastion nobody heartbeats is deleted by the controller manager once it expires; the SSH
//    connection that worked through it before fails afterwards, and its machine is gone from the host;
//  - chaos: provider-local, then the gardenlet, is SIGKILLed at random points (seeded PRNG, seed printed;
//    CHAOS_SEED=<n> replays) during Bastion create/delete cycles of the project member, a few at a time;
//    the supervisor restarts the killed component, and once things converge every Bastion is gone from
//    garden and seed and the host holds exactly what it held before (no machine, netns, link, nft table,
//    mount, supervisor process, record or public address of a bastion).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test, type TestContext } from "node:test";
import { Secrets } from "../../../src/client/builtins.ts";
import { Bastions } from "../../../src/client/garden.ts";
import { PROJECT_NAMESPACE, SHOOT, SHOOT_TECHNICAL_ID } from "../../../src/landscape/layout.ts";
import { readStatus } from "../../../src/landscape/status.ts";
import { Nodes } from "../../../src/nodeagent/node.ts";
import { bastionMachineName } from "../../../src/provider-local/controller/bastion/actuator.ts";
import { eventually } from "../../support/http.ts";
import { type Landscape, hostSnapshot, skipUnlessRoot, startLandscape } from "../support/landscape.ts";
import { type HostView, absentIn, bastionGone, bastionParts, gardenBastion, hostView, prng, remainingBastions, sleep, sshThroughBastion } from "./support.ts";

const PREFIX = "glc-";
const TTL_SECONDS = 20;
/** 50 create/delete cycles while provider-local is killed at random points, 50 more while the gardenlet is. */
const CYCLES_PER_COMPONENT = 50;
const PARALLEL = 3;
const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 2 ** 31);

const progress = (line: string): void => void process.stderr.write(`${new Date().toISOString()} ${line}\n`);

describe("bastions on the local landscape: expiry and chaos", { skip: skipUnlessRoot, timeout: 480_000 }, () => {
  let l: Landscape;
  let before0: ReturnType<typeof hostSnapshot>;
  let baseline: HostView;
  let userKey: string;
  let userPub: string;
  const cidr = (): string => `${l.hostAddress}/32`;

  before(async () => {
    // The state directory does not exist yet: only objects of the prefix can show up here.
    before0 = hostSnapshot("/nonexistent-landscape-dir", PREFIX);
    l = await startLandscape({ prefix: PREFIX, ports: { garden: 27443, seed: 27444, shoot: 27445 }, bastionTimeToLive: `${TTL_SECONDS}s`, out: progress });
    userKey = join(l.dir, "id_user");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "e2e", "-f", userKey]);
    userPub = readFileSync(`${userKey}.pub`, "utf8").trim();
    baseline = await hostView(l);
    assert.deepEqual(bastionParts(baseline), [], "no bastion on the host before the tests");
  });

  after(async () => {
    if (!l) return;
    const dir = l.dir;
    await l.stop(progress);
    const left = hostSnapshot(dir, PREFIX);
    assert.deepEqual(left, before0, "down leaves nothing of the landscape on the host");
  });

  test(`expiry: after ${TTL_SECONDS}s without heartbeat the Bastion is deleted, SSH through it fails, its machine is gone`, async () => {
    const name = "expiry";
    const created = await l.member.create(Bastions, gardenBastion(name, userPub, cidr()));
    const ready = await eventually("bastion ready", async () => {
      const b = await l.member.get(Bastions, { namespace: PROJECT_NAMESPACE, name });
      return b.status?.ingress?.ip && b.status.conditions?.some((c) => c.type === "BastionReady" && c.status === "True") ? b : undefined;
    }, 60_000, 250);
    const expires = Date.parse(ready.status!.expirationTimestamp!) - Date.parse(created.metadata.creationTimestamp!);
    assert.ok(expires >= (TTL_SECONDS - 1) * 1000 && expires <= (TTL_SECONDS + 1) * 1000, `expiration ${expires} ms after creation`);
    const machine = bastionMachineName(SHOOT_TECHNICAL_ID, name);
    const during = await hostView(l);
    assert.ok(during.machines.includes(machine), "the bastion machine runs");
    assert.ok(bastionParts(during).length > 0 && during.workerAccess.length > 0, "the host view sees the bastion and the workers' access for it");

    const secret = await l.member.get(Secrets, { namespace: PROJECT_NAMESPACE, name: `${SHOOT}.ssh-keypair` });
    const nodeKey = join(l.dir, "id_node");
    writeFileSync(nodeKey, Buffer.from(secret.data!.id_rsa!, "base64"), { mode: 0o600 });
    const node = (await l.shoot.list(Nodes)).items.find((n) => n.metadata.name!.endsWith("-w1"))!;
    const nodeAddress = node.status!.addresses!.find((a) => a.type === "InternalIP")!.address;
    const ssh = (): ReturnType<typeof sshThroughBastion> => sshThroughBastion({ bastionIp: ready.status!.ingress!.ip!, bastionKey: userKey, nodeKey, nodeAddress, command: "hostname" });
    const first = await ssh();
    assert.equal(first.code, 0, first.out);
    assert.match(first.out, /^worker-w1$/m);

    // No heartbeat: the controller manager deletes it at expiration (not before), the gardenlet and provider-local tear it down.
    await eventually("expired bastion deleted in garden and seed", async () => ((await bastionGone(l, name)) ? true : undefined), (TTL_SECONDS + 60) * 1000, 500);
    assert.ok(Date.now() >= Date.parse(ready.status!.expirationTimestamp!), "not deleted before it expired");
    const next = await ssh();
    assert.notEqual(next.code, 0, `SSH through the expired bastion must fail: ${next.out}`);
    assert.equal((await hostView(l)).machines.includes(machine), false, "machine gone");
    await backAtBaseline();
  });

  for (const component of ["provider-local", "gardenlet"] as const) {
    test(`chaos: SIGKILL ${component} during ${CYCLES_PER_COMPONENT} bastion create/delete cycles, then everything converges`, async (t) => {
      await chaos(t, component, SEED + (component === "gardenlet" ? 1 : 0));
    });
  }

  /** The host holds what it held after `up` (worker sets may lag the machine's removal a moment). */
  async function backAtBaseline(): Promise<void> {
    const same = async (): Promise<true | undefined> => (JSON.stringify(await hostView(l)) === JSON.stringify(baseline) ? true : undefined);
    await eventually("the host back at its baseline", same, 30_000, 500).catch(() => undefined);
    assert.deepEqual(await hostView(l), baseline, "no host resource of a bastion remains");
  }

  async function chaos(t: TestContext, component: string, seed: number): Promise<void> {
    t.diagnostic(`seed ${seed} (replay with CHAOS_SEED=${SEED})`);
    process.stderr.write(`bastion chaos (${component}): seed ${seed}, CHAOS_SEED=${SEED}\n`);
    // Separate streams: the kill points and the cycles' waits each replay from the seed.
    const killRand = prng(seed);
    const waitRand = prng(seed ^ 0x5bd1e995);
    const restartsBefore = readStatus(l.layout)?.components.find((c) => c.name === component)?.restarts ?? 0;
    let next = 0;
    let done = false;
    const names: string[] = [];
    let reachedSeed = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < CYCLES_PER_COMPONENT; i = next++) {
        const name = `chaos-${component === "gardenlet" ? "g" : "p"}-${i}`;
        names.push(name);
        // The API servers are never killed: create and delete must succeed at once.
        await l.member.create(Bastions, gardenBastion(name, userPub, cidr()));
        await sleep(Math.floor(waitRand() * 3000));
        if (!(await absentIn(l.seed, name))) reachedSeed++;
        await l.member.delete(Bastions, { namespace: PROJECT_NAMESPACE, name });
      }
    };
    const kills: number[] = [];
    const killer = async (): Promise<void> => {
      while (!done) {
        await sleep(1000 + Math.floor(killRand() * 2500));
        const pid = l.pidOf(component);
        if (done || pid === undefined || kills.includes(pid)) continue;
        process.kill(pid, "SIGKILL");
        kills.push(pid);
      }
    };
    const killing = killer();
    try {
      await Promise.all(Array.from({ length: PARALLEL }, worker));
    } finally {
      done = true;
      await killing;
    }
    t.diagnostic(`${names.length} cycles (${reachedSeed} reached the seed before their delete), ${kills.length} kills of ${component}`);
    assert.equal(names.length, CYCLES_PER_COMPONENT);
    assert.ok(reachedSeed > 0, "some bastions got as far as the seed before they were deleted");
    assert.ok(kills.length >= 2, `${component} was killed only ${kills.length} times`);

    await eventually(`${component} restarted by the supervisor`, () => {
      const pid = l.pidOf(component);
      return pid !== undefined && !kills.includes(pid) ? pid : undefined;
    }, 60_000, 250);
    const left = await eventually("every bastion gone in garden and seed", async () => {
      const r = await remainingBastions(l);
      return r.garden.length + r.seed.length === 0 ? r : undefined;
    }, 120_000, 500).catch(async (err: Error) => assert.fail(`${err.message}: ${JSON.stringify(await remainingBastions(l))}`));
    assert.deepEqual(left, { garden: [], seed: [] });
    await backAtBaseline();
    const restarts = (): number => readStatus(l.layout)?.components.find((c) => c.name === component)?.restarts ?? 0;
    await eventually(`a restart of ${component} per kill in status.json`, () => (restarts() - restartsBefore >= kills.length ? true : undefined), 10_000, 250)
      .catch(() => assert.fail(`${restarts() - restartsBefore} restarts of ${component} after ${kills.length} kills`));
  }
});
